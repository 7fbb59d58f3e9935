/**
 * Approvals by people: a tool call marked "ask first" waits until someone
 * in the room approves or denies it, or until nobody has in time.
 *
 * The waiting itself is the AI SDK's (`needsApproval`): the answer's stream
 * ends with the call in `approval-requested`, which AIChatAgent stores and
 * shows to every socket. The framework's own answer to it is a frame from
 * the one browser that ran the chat (`addToolApprovalResponse`), with no
 * notion of who may decide, of a first decision winning, of a deadline, or
 * of REST. So this job:
 *
 * - records each request (tool, arguments, who asked, when it expires) in a
 *   table of its own, and sets an alarm for its deadline;
 * - takes a decision from any caller the overseer let through
 *   (`room.approve`), first one wins (the Durable Object runs one call at a
 *   time, and the check and the write have no await between them);
 * - writes the decision into the tool part with the framework's own update
 *   (`toolApprovalUpdate`, agents/chat), adding who decided and when, and
 *   continues the answer with `continueLastTurn`: the AI SDK then runs the
 *   approved call (or tells the model it was denied) and the model goes on.
 */

import { toolApprovalUpdate } from "agents/chat";
import type { UIMessage } from "ai";
import { AppError } from "@/server/app-error";
import type { MessageAuthor } from "@/shared/identity";
import type { ToolApproval } from "@/shared/tools";

interface ApprovalRow {
  tool_call_id: string;
  tool: string;
  server: string;
  input: string;
  asked_by: string | null;
  requested_at: number;
  expires_at: number;
  approved: number | null;
  decided_by: string | null;
  decided_at: number | null;
  [key: string]: SqlStorageValue;
}

export interface ApprovalRequest {
  toolCallId: string;
  tool: string;
  server: string;
  input: unknown;
  askedBy: MessageAuthor | null;
}

export interface RoomApprovalsDeps {
  sql: SqlStorage;
  messages: () => UIMessage[];
  persist: (messages: UIMessage[]) => Promise<void>;
  /** Continues the last answer (AIChatAgent's `continueLastTurn`), not awaited by a decision. */
  continueAnswer: () => Promise<unknown>;
  /** An alarm that calls `expire` at `at` (the agent's `schedule`). */
  scheduleExpiry: (at: Date) => Promise<unknown>;
  timeoutMs: () => number;
  waitUntil: (promise: Promise<unknown>) => void;
}

type Part = UIMessage["parts"][number] & { toolCallId?: string; state?: string; approval?: Record<string, unknown> };

export class RoomApprovals {
  #ready = false;

  constructor(private readonly deps: RoomApprovalsDeps) {}

  #sql(): SqlStorage {
    if (!this.#ready) {
      this.deps.sql.exec(`CREATE TABLE IF NOT EXISTS tool_approvals (
        tool_call_id TEXT PRIMARY KEY, tool TEXT NOT NULL, server TEXT NOT NULL, input TEXT NOT NULL,
        asked_by TEXT, requested_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
        approved INTEGER, decided_by TEXT, decided_at INTEGER)`);
      this.#ready = true;
    }
    return this.deps.sql;
  }

  /** A call the model made that waits for a person (called from the tool's `needsApproval`). */
  request(request: ApprovalRequest, now = Date.now()): void {
    const expiresAt = now + this.deps.timeoutMs();
    this.#sql().exec(
      `INSERT OR IGNORE INTO tool_approvals (tool_call_id, tool, server, input, asked_by, requested_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      request.toolCallId,
      request.tool,
      request.server,
      JSON.stringify(request.input ?? null).slice(0, 16_000),
      request.askedBy ? JSON.stringify(request.askedBy) : null,
      now,
      expiresAt
    );
    this.deps.waitUntil(this.deps.scheduleExpiry(new Date(expiresAt + 500)));
  }

  #rows(where: string, ...args: SqlStorageValue[]): ApprovalRow[] {
    return this.#sql()
      .exec<ApprovalRow>(`SELECT * FROM tool_approvals ${where} ORDER BY requested_at`, ...args)
      .toArray();
  }

  /** Calls waiting for a decision now (expired ones are denied first). */
  async pending(now = Date.now()): Promise<ToolApproval[]> {
    await this.expire(now);
    return this.#rows("WHERE decided_at IS NULL").map((row) => this.#view(row));
  }

  /** Every call asked about, decided or not (newest last); at most `limit`. */
  all(limit = 200): ToolApproval[] {
    return this.#rows("")
      .slice(-limit)
      .map((row) => this.#view(row));
  }

  /** Denies every call nobody decided in time (the alarm, and before any listing or decision). */
  async expire(now = Date.now()): Promise<void> {
    for (const row of this.#rows("WHERE decided_at IS NULL AND expires_at <= ?", now)) {
      await this.#decide(row, false, null, now);
    }
  }

  async decide(toolCallId: string, approved: boolean, by: MessageAuthor, now = Date.now()): Promise<ToolApproval> {
    await this.expire(now);
    const row = this.#rows("WHERE tool_call_id = ?", toolCallId)[0];
    if (!row) throw new AppError("not_found:approval", 404, "No tool call in this room waits with that id.");
    if (row.decided_at !== null) throw decidedAlready(row);
    return this.#decide(row, approved, by, now);
  }

  async #decide(row: ApprovalRow, approved: boolean, by: MessageAuthor | null, now: number): Promise<ToolApproval> {
    // Recorded before any await: a second decision arriving meanwhile finds it decided.
    this.#sql().exec(
      "UPDATE tool_approvals SET approved = ?, decided_by = ?, decided_at = ? WHERE tool_call_id = ? AND decided_at IS NULL",
      approved ? 1 : 0,
      by ? JSON.stringify(by) : null,
      now,
      row.tool_call_id
    );
    const decided = this.#rows("WHERE tool_call_id = ?", row.tool_call_id)[0] ?? row;
    const messages = this.deps.messages();
    const index = messages.findIndex((m) => m.parts.some((p) => (p as Part).toolCallId === row.tool_call_id));
    const message = messages[index];
    if (message) {
      const update = toolApprovalUpdate(row.tool_call_id, approved);
      const reason = by
        ? `${approved ? "Approved" : "Denied"} by ${by.name}.`
        : "Nobody approved this call in time, so it was denied.";
      const parts = message.parts.map((part) => {
        const p = part as Part;
        if (p.toolCallId !== row.tool_call_id || !update.matchStates.includes(p.state as never)) return part;
        const applied = update.apply(p as never) as Part;
        return { ...applied, approval: { ...applied.approval, reason, decidedBy: by, decidedAt: now } } as Part;
      });
      await this.deps.persist(messages.map((m) => (m.id === message.id ? { ...message, parts } : m)));
      // The answer goes on only where it stopped: a call in an older answer is decided, not resumed.
      if (index === messages.length - 1 && !this.#waitingIn({ ...message, parts })) {
        this.deps.waitUntil(
          this.deps.continueAnswer().catch((error) => console.warn(`[RoomApprovals] continue: ${String(error)}`))
        );
      }
    }
    return this.#view(decided);
  }

  /** Whether another call of the same answer still waits (the answer goes on once all are decided). */
  #waitingIn(message: UIMessage): boolean {
    return message.parts.some((p) => (p as Part).state === "approval-requested");
  }

  #view(row: ApprovalRow): ToolApproval {
    const message = this.deps.messages().find((m) => m.parts.some((p) => (p as Part).toolCallId === row.tool_call_id));
    return {
      toolCallId: row.tool_call_id,
      tool: row.tool,
      server: row.server,
      input: safeParse(row.input),
      askedBy: row.asked_by ? (safeParse(row.asked_by) as MessageAuthor) : null,
      messageId: message?.id ?? "",
      requestedAt: row.requested_at,
      expiresAt: row.expires_at,
      decision:
        row.decided_at === null
          ? null
          : {
              approved: row.approved === 1,
              by: row.decided_by ? (safeParse(row.decided_by) as MessageAuthor) : null,
              at: row.decided_at
            }
    };
  }
}

function decidedAlready(row: ApprovalRow): AppError {
  const by = row.decided_by ? (safeParse(row.decided_by) as MessageAuthor).name : null;
  const what = row.approved === 1 ? "approved" : "denied";
  return new AppError(
    "conflict:approval_decided",
    409,
    by ? `${by} already ${what} this call.` : "Nobody decided this call in time, so it was denied."
  );
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
