/**
 * The file limits of a deployment, from its environment (docs/files.md),
 * and how an upload's allowance follows from them and what is used.
 */
import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_ROOM_FILE_QUOTA_BYTES,
  DEFAULT_WORKSPACE_FILE_QUOTA_BYTES,
  MAX_FILES_PER_ROOM
} from "@/shared/constants";

export interface FileLimits {
  maxFileBytes: number;
  roomQuotaBytes: number;
  workspaceQuotaBytes: number;
}

interface FileLimitsEnv {
  FILES_MAX_BYTES?: string;
  FILES_ROOM_QUOTA_BYTES?: string;
  FILES_WORKSPACE_QUOTA_BYTES?: string;
}

function positive(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return raw !== undefined && raw !== "" && Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
}

export function fileLimits(env: FileLimitsEnv): FileLimits {
  return {
    maxFileBytes: positive(env.FILES_MAX_BYTES, DEFAULT_MAX_FILE_BYTES),
    roomQuotaBytes: positive(env.FILES_ROOM_QUOTA_BYTES, DEFAULT_ROOM_FILE_QUOTA_BYTES),
    workspaceQuotaBytes: positive(env.FILES_WORKSPACE_QUOTA_BYTES, DEFAULT_WORKSPACE_FILE_QUOTA_BYTES)
  };
}

/** Bytes as people read them: 25 MB, 1.5 GB, 812 KB. */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = unit === 0 || value >= 10 ? Math.round(value) : Math.round(value * 10) / 10;
  return `${shown} ${units[unit]}`;
}

/** What the Worker needs to store an upload. */
export interface UploadTicket {
  fileId: string;
  key: string;
  maxBytes: number;
  /** The 413 for a file past `maxBytes`: the file limit, or a quota. */
  tooLarge: string;
  tooLargeCode: "payload_too_large:file" | "payload_too_large:quota";
}

export interface Usage {
  roomBytes: number;
  roomFiles: number;
  workspaceBytes: number;
}

export type Allowance =
  | { ok: true; maxBytes: number; bound: "file" | "room" | "workspace" }
  | { ok: false; message: string };

/**
 * The most bytes a new file may have now, and which limit sets it; or why
 * no file fits at all (a full room or workspace).
 */
export function uploadAllowance(limits: FileLimits, usage: Usage): Allowance {
  if (usage.roomFiles >= MAX_FILES_PER_ROOM) {
    return { ok: false, message: `This room holds ${MAX_FILES_PER_ROOM} files, the most it can. Delete some first.` };
  }
  const room = limits.roomQuotaBytes - usage.roomBytes;
  const workspace = limits.workspaceQuotaBytes - usage.workspaceBytes;
  if (room <= 0) {
    return {
      ok: false,
      message: `This room's files use ${formatBytes(usage.roomBytes)} of its ${formatBytes(limits.roomQuotaBytes)}. Delete some first.`
    };
  }
  if (workspace <= 0) {
    return {
      ok: false,
      message: `This workspace's files use ${formatBytes(usage.workspaceBytes)} of its ${formatBytes(limits.workspaceQuotaBytes)}. Delete some first.`
    };
  }
  const maxBytes = Math.min(limits.maxFileBytes, room, workspace);
  const bound = maxBytes === limits.maxFileBytes ? "file" : maxBytes === room ? "room" : "workspace";
  return { ok: true, maxBytes, bound };
}

/** The 413 message for a file past its allowance. */
export function tooLargeMessage(limits: FileLimits, usage: Usage, bound: "file" | "room" | "workspace"): string {
  if (bound === "file") return `The file is larger than the ${formatBytes(limits.maxFileBytes)} limit.`;
  if (bound === "room") {
    return `The file does not fit: this room's files use ${formatBytes(usage.roomBytes)} of its ${formatBytes(limits.roomQuotaBytes)}.`;
  }
  return `The file does not fit: this workspace's files use ${formatBytes(usage.workspaceBytes)} of its ${formatBytes(limits.workspaceQuotaBytes)}.`;
}

/**
 * Why a copy of `bytes` of files (a fork's) does not fit the workspace, or
 * null when it does. The room's own quota holds: the copy is of a room that fit it.
 */
export function copyRefusal(limits: FileLimits, workspaceBytes: number, bytes: number): string | null {
  if (workspaceBytes + bytes <= limits.workspaceQuotaBytes) return null;
  return `Copying this room's files (${formatBytes(bytes)}) would pass the workspace's ${formatBytes(limits.workspaceQuotaBytes)}: its files use ${formatBytes(workspaceBytes)}. Delete some first.`;
}

/** The R2 key of a file: under its workspace and room, so a room's files are one prefix. */
export function fileKey(workspace: string, roomId: string, fileId: string): string {
  return `${roomPrefix(workspace, roomId)}${fileId}`;
}

export function roomPrefix(workspace: string, roomId: string): string {
  return `${workspace}/${roomId}/`;
}

/** A new file id (shared/files.ts FILE_ID_PATTERN). */
export function generateFileId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `f_${btoa(binary).replaceAll("+", "-").replaceAll("/", "_")}`;
}

/**
 * Why an imported room's files (`sizes`, a `.zip`'s) do not fit, or null:
 * each file under the file limit, all of them under a room's count and quota,
 * and the workspace's quota with what it already uses.
 */
export function importRefusal(
  limits: FileLimits,
  workspaceBytes: number,
  sizes: readonly number[]
): { code: "payload_too_large:file" | "payload_too_large:quota"; message: string } | null {
  const largest = Math.max(0, ...sizes);
  if (largest > limits.maxFileBytes) {
    return {
      code: "payload_too_large:file",
      message: `The archive holds a file of ${formatBytes(largest)}, larger than the ${formatBytes(limits.maxFileBytes)} limit.`
    };
  }
  if (sizes.length > MAX_FILES_PER_ROOM) {
    return {
      code: "payload_too_large:quota",
      message: `The archive holds ${sizes.length} files; a room holds at most ${MAX_FILES_PER_ROOM}.`
    };
  }
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total > limits.roomQuotaBytes) {
    return {
      code: "payload_too_large:quota",
      message: `The archive's files take ${formatBytes(total)}, more than a room's ${formatBytes(limits.roomQuotaBytes)}.`
    };
  }
  const refusal = copyRefusal(limits, workspaceBytes, total);
  return refusal ? { code: "payload_too_large:quota", message: refusal.replace("Copying", "Importing") } : null;
}
