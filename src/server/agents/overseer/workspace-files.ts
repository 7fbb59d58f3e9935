/**
 * The overseer's half of files: what each room's files take (for the
 * workspace's quota, answered without waking rooms), uploads' admission
 * (rate limits, here and then across the uploader's workspaces, and quotas,
 * before the Worker reads a byte), and purges of
 * bytes in R2. A purge is a row kept until its prefix is empty, retried by
 * an alarm, so a deleted room or file cannot leave bytes behind.
 * The bytes themselves never come here: the Worker streams them to R2.
 */

import { AppError, rateLimited } from "@/server/app-error";
import { type Caller, limitKeys } from "@/server/domain/access/caller";
import type { IdentityLimits } from "@/server/domain/access/identity-limits";
import { RateLimiter, rateScaleFrom, scaled } from "@/server/domain/access/rate-limit";
import {
  copyRefusal,
  type FileLimits,
  fileKey,
  generateFileId,
  importRefusal,
  roomPrefix,
  tooLargeMessage,
  type UploadTicket,
  type Usage,
  uploadAllowance
} from "@/server/domain/files/file-limits";
import { ADDRESS_LIMIT_FACTOR, FILE_UPLOAD_RATE } from "@/shared/constants";
import { OpenWrites, UPLOAD_DEADLINE_MS } from "./open-writes";

export interface FilePurgeHost {
  bucket: R2Bucket;
  /** Runs the purges again later (an alarm), after a failure. */
  retryLater(): void;
  /** Sweeps writes past their deadline in about this many seconds (an alarm calling `sweepOpenWrites`). */
  sweepIn(seconds: number): void;
  waitUntil(promise: Promise<unknown>): void;
}

const PURGE_BATCH = 1000;

export class WorkspaceFiles {
  #limiter: RateLimiter;
  #addressLimiter: RateLimiter;
  #purging: Promise<void> | null = null;
  /** Bytes being written that no room records yet, purged if never recorded (open-writes.ts). */
  readonly openWrites: OpenWrites;

  constructor(
    private readonly sql: SqlStorage,
    private readonly limits: () => FileLimits,
    rateLimitScale: string | undefined,
    private readonly purgeHost: FilePurgeHost,
    /** The uploader's allowance across workspaces, asked after this workspace's limits pass. */
    private readonly acrossWorkspaces: IdentityLimits
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS room_file_usage (
      room_id TEXT PRIMARY KEY,
      bytes INTEGER NOT NULL DEFAULT 0,
      files INTEGER NOT NULL DEFAULT 0
    )`);
    sql.exec("CREATE TABLE IF NOT EXISTS file_purges (prefix TEXT PRIMARY KEY, created_at INTEGER NOT NULL)");
    const scale = rateScaleFrom(rateLimitScale);
    this.#limiter = new RateLimiter(scaled(FILE_UPLOAD_RATE, scale));
    this.#addressLimiter = new RateLimiter(scaled(FILE_UPLOAD_RATE, scale * ADDRESS_LIMIT_FACTOR));
    this.openWrites = new OpenWrites(sql, {
      purge: (prefix) => this.purge(prefix),
      sweepIn: (seconds) => purgeHost.sweepIn(seconds)
    });
  }

  usage(roomId: string): Usage {
    const room = this.sql
      .exec<{ bytes: number; files: number }>("SELECT bytes, files FROM room_file_usage WHERE room_id = ?", roomId)
      .toArray()[0];
    const total = this.sql.exec<{ bytes: number | null }>("SELECT SUM(bytes) AS bytes FROM room_file_usage").one();
    return { roomBytes: room?.bytes ?? 0, roomFiles: room?.files ?? 0, workspaceBytes: total.bytes ?? 0 };
  }

  /** Lets an upload start, or throws 429 (rate) / 413 (a full room or workspace). */
  async admit(workspace: string, roomId: string, caller: Caller): Promise<UploadTicket> {
    await this.takeUpload(caller);
    const limits = this.limits();
    const usage = this.usage(roomId);
    const allowance = uploadAllowance(limits, usage);
    if (!allowance.ok) throw new AppError("payload_too_large:quota", 413, allowance.message);
    const fileId = generateFileId();
    const key = fileKey(workspace, roomId, fileId);
    this.openWrites.open(key, UPLOAD_DEADLINE_MS);
    return {
      fileId,
      key,
      maxBytes: allowance.maxBytes,
      tooLarge: tooLargeMessage(limits, usage, allowance.bound),
      tooLargeCode: allowance.bound === "file" ? "payload_too_large:file" : "payload_too_large:quota"
    };
  }

  /** One upload off the caller's rate (an upload, or a `.zip` import as a whole); throws 429 when none is left. */
  async takeUpload(caller: Caller): Promise<void> {
    const keys = limitKeys(caller);
    const now = Date.now();
    for (const admission of [this.#limiter.take(keys.identity, now), this.#addressLimiter.take(keys.address, now)]) {
      if (!admission.ok) throw rateLimited(admission.retryAfterMs, "uploads");
    }
    // Then the identity's allowance across every workspace (agents/limit-keeper.ts).
    const across = await this.acrossWorkspaces.take(keys.identity, "upload");
    if (!across.ok) throw rateLimited(across.retryAfterMs, "uploads");
  }

  /** Whether an imported room's files fit (each file, the room, the workspace); throws 413 if not. */
  checkImportFits(sizes: readonly number[]) {
    const used = this.sql.exec<{ bytes: number | null }>("SELECT SUM(bytes) AS bytes FROM room_file_usage").one();
    const refusal = importRefusal(this.limits(), used.bytes ?? 0, sizes);
    if (refusal) throw new AppError(refusal.code, 413, refusal.message);
  }

  /** A stored file still fits (concurrent uploads may have filled the room meanwhile); throws 413 if not. */
  checkFits(roomId: string, size: number) {
    const limits = this.limits();
    const usage = this.usage(roomId);
    const allowance = uploadAllowance(limits, usage);
    if (!allowance.ok) throw new AppError("payload_too_large:quota", 413, allowance.message);
    if (size > allowance.maxBytes) {
      throw new AppError("payload_too_large:quota", 413, tooLargeMessage(limits, usage, allowance.bound));
    }
  }

  added(roomId: string, size: number) {
    this.sql.exec(
      `INSERT INTO room_file_usage (room_id, bytes, files) VALUES (?, ?, 1)
       ON CONFLICT (room_id) DO UPDATE SET bytes = bytes + excluded.bytes, files = files + 1`,
      roomId,
      size
    );
  }

  /** Whether `bytes` more of copied files fit the workspace; throws 413 with what is used if not. */
  checkCopyFits(bytes: number) {
    const used = this.sql.exec<{ bytes: number | null }>("SELECT SUM(bytes) AS bytes FROM room_file_usage").one();
    const refusal = copyRefusal(this.limits(), used.bytes ?? 0, bytes);
    if (refusal) throw new AppError("payload_too_large:quota", 413, refusal);
  }

  /**
   * Copies one file's bytes to another room (a fork) and counts them there;
   * false when the source's bytes are gone (deleted meanwhile). The bytes
   * stream R2 to R2; a fixed-length stream tells R2 the size up front.
   */
  async copy(workspace: string, fromRoom: string, toRoom: string, fileId: string): Promise<boolean> {
    const { bucket } = this.purgeHost;
    const object = await bucket.get(fileKey(workspace, fromRoom, fileId));
    if (!object) return false;
    const { readable, writable } = new FixedLengthStream(object.size);
    const piping = object.body.pipeTo(writable);
    await bucket.put(fileKey(workspace, toRoom, fileId), readable, { httpMetadata: object.httpMetadata });
    await piping;
    this.added(toRoom, object.size);
    return true;
  }

  /** A file's record is gone: its bytes go next. */
  removed(roomId: string, size: number, key: string) {
    this.sql.exec(
      "UPDATE room_file_usage SET bytes = MAX(0, bytes - ?), files = MAX(0, files - 1) WHERE room_id = ?",
      size,
      roomId
    );
    this.purge(key);
  }

  /** A room is gone: every byte under its prefix goes. */
  roomDeleted(workspace: string, roomId: string) {
    this.sql.exec("DELETE FROM room_file_usage WHERE room_id = ?", roomId);
    this.purge(roomPrefix(workspace, roomId));
  }

  /** Deletes everything under `prefix` (an exact key is its own prefix), now and until it is done. */
  purge(prefix: string) {
    this.sql.exec("INSERT OR IGNORE INTO file_purges (prefix, created_at) VALUES (?, ?)", prefix, Date.now());
    this.purgeHost.waitUntil(this.runPurges());
  }

  /** Purges not finished yet (tests prove a deleted room leaves none). */
  pendingPurges(): string[] {
    return this.sql
      .exec<{ prefix: string }>("SELECT prefix FROM file_purges ORDER BY created_at")
      .toArray()
      .map((r) => r.prefix);
  }

  /** Runs every pending purge; one run at a time. */
  runPurges(): Promise<void> {
    this.#purging ??= this.#runPurges().finally(() => {
      this.#purging = null;
    });
    return this.#purging;
  }

  async #runPurges() {
    const { bucket } = this.purgeHost;
    try {
      for (let prefixes = this.pendingPurges(); prefixes.length > 0; prefixes = this.pendingPurges()) {
        for (const prefix of prefixes) {
          for (;;) {
            const listed = await bucket.list({ prefix, limit: PURGE_BATCH });
            if (listed.objects.length === 0) break;
            await bucket.delete(listed.objects.map((o) => o.key));
          }
          this.sql.exec("DELETE FROM file_purges WHERE prefix = ?", prefix);
        }
      }
    } catch (error) {
      console.warn("[OverseerAgent] a file purge failed; retrying later:", error);
      this.purgeHost.retryLater();
    }
  }
}
