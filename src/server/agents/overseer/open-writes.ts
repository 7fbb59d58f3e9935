/**
 * Bytes the Worker is writing to R2 that no room records yet: an upload
 * between its admission and the room's record of it, a `.zip` import
 * between its ticket and its room. Each is a row with a deadline; settling
 * it (the record was made, the room registered) removes the row. If the
 * Worker dies in between (the isolate was evicted, the client went away at
 * the wrong moment), no one would ever delete those bytes: at the deadline
 * the sweep hands the row's prefix to the purges (workspace-files.ts).
 *
 * A settle that comes after its row was swept is refused, so bytes being
 * purged are never recorded as a file.
 */

/** How long an upload may take from admission to its record (a 25 MB file on a slow link fits well within). */
export const UPLOAD_DEADLINE_MS = 60 * 60_000;
/** How long a `.zip` import may take from its ticket to its room. */
export const ZIP_IMPORT_DEADLINE_MS = 6 * 60 * 60_000;

export interface OpenWritesHost {
  /** Deletes every object under `prefix`, now and until done. */
  purge(prefix: string): void;
  /** Calls `sweep` again in about this many seconds (an alarm). */
  sweepIn(seconds: number): void;
}

export class OpenWrites {
  constructor(
    private readonly sql: SqlStorage,
    private readonly host: OpenWritesHost
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS file_writes_open (
      prefix TEXT PRIMARY KEY,
      deadline INTEGER NOT NULL
    )`);
  }

  /** Bytes are about to be written under `prefix` (an exact key is its own prefix). */
  open(prefix: string, deadlineMs: number, now = Date.now()) {
    const first = this.#next() === null;
    this.sql.exec("INSERT OR REPLACE INTO file_writes_open (prefix, deadline) VALUES (?, ?)", prefix, now + deadlineMs);
    // One alarm at a time: the sweep sets the next one for what is left.
    if (first) this.host.sweepIn(Math.ceil(deadlineMs / 1000) + 1);
  }

  /** The bytes are recorded now; false when the deadline passed and they are being purged. */
  settle(prefix: string): boolean {
    const cursor = this.sql.exec("DELETE FROM file_writes_open WHERE prefix = ? RETURNING prefix", prefix);
    return cursor.toArray().length > 0;
  }

  /** Whether `prefix` is still open (its bytes may still be recorded). */
  isOpen(prefix: string): boolean {
    return this.sql.exec("SELECT 1 FROM file_writes_open WHERE prefix = ?", prefix).toArray().length > 0;
  }

  /** Purges what passed its deadline; sets the alarm for the next one. */
  sweep(now = Date.now()) {
    const due = this.sql
      .exec<{ prefix: string }>("DELETE FROM file_writes_open WHERE deadline <= ? RETURNING prefix", now)
      .toArray();
    for (const { prefix } of due) this.host.purge(prefix);
    const next = this.#next();
    if (next !== null) this.host.sweepIn(Math.max(1, Math.ceil((next - now) / 1000)));
  }

  /** What is open now (tests prove a finished upload or import leaves nothing). */
  pending(): string[] {
    return this.sql
      .exec<{ prefix: string }>("SELECT prefix FROM file_writes_open ORDER BY deadline")
      .toArray()
      .map((r) => r.prefix);
  }

  #next(): number | null {
    return this.sql.exec<{ d: number | null }>("SELECT MIN(deadline) AS d FROM file_writes_open").one().d;
  }
}
