/**
 * Edits and regenerations as branches: the new version is written beside
 * what it replaces, so nothing is deleted (the framework would rewrite the
 * message in place and drop every later turn). The chat-request guard
 * (domain/messages/chat-request-guard.ts) plans the branch; this writes it before
 * the turn runs, and hands a regeneration's empty version to the turn that
 * fills it in.
 */
import type { AIChatAgent } from "@cloudflare/ai-chat";
import type { UIMessage } from "ai";
import type { Branch } from "@/server/domain/messages/chat-request-guard";
import { normalizeMessage } from "@/server/domain/messages/persisted-message";
import type { RoomActivityLog } from "./activity";

/** What branches need from their room. */
type BranchHost = Pick<AIChatAgent, "messages" | "sessions">;

export class RoomBranches {
  /** The empty version a regeneration's answer fills in. */
  #pendingAnswer: UIMessage | null = null;

  constructor(
    private readonly room: BranchHost,
    private readonly activity: Pick<RoomActivityLog, "visibleCount" | "leftPath">,
    /** Whether an answer is streaming now (the framework's resumable stream). */
    private readonly streaming: () => boolean
  ) {}

  /**
   * Writes the branch and makes it the transcript the turn sees. Refused
   * while an answer streams or a turn waits, so that answer cannot land on
   * the new branch.
   */
  async write(branch: Branch): Promise<{ ok: true } | { ok: false; message: string }> {
    if (this.streaming() || this.turnWaiting()) {
      return { ok: false, message: "Wait for the current answer to finish (or stop it), then try again." };
    }
    const now = Date.now();
    const stored = normalizeMessage(branch.message, now);
    if (!stored) return { ok: false, message: "That version cannot be stored." };
    // The replaced message's place in the whole room (the in-memory window
    // may start partway in): it and everything after it leave the path.
    const visible = this.activity.visibleCount();
    const replacedAt =
      visible - this.room.messages.length + (branch.kind === "edit" ? branch.path.length - 1 : branch.path.length);
    await this.room.sessions.session().appendMessage(stored, { parentId: branch.parentId });
    this.activity.leftPath(visible - replacedAt);
    // The change feed appended it to the old branch's window; the turn sees the new branch.
    this.room.messages = branch.kind === "edit" ? [...branch.path.slice(0, -1), stored] : [...branch.path];
    this.#pendingAnswer = branch.kind === "regenerate" ? stored : null;
    return { ok: true };
  }

  /** The version a regeneration's answer fills in, once; a continuation extends the last answer instead. */
  /** A regeneration's version waits for its answer (so a turn that finds every question answered is that regeneration). */
  awaitsRegeneration(): boolean {
    return this.#pendingAnswer !== null;
  }

  takePendingAnswer(continuation: boolean): UIMessage | null {
    const version = continuation ? null : this.#pendingAnswer;
    this.#pendingAnswer = null;
    return version;
  }

  /**
   * A turn accepted but not streaming yet (queued behind another, or still
   * persisting its message): a branch written now would pull the transcript
   * out from under it. AIChatAgent keeps this state private (no public
   * accessor in @cloudflare/ai-chat), so read its turn queue and submit
   * counter directly; a framework upgrade that renames them fails the
   * versions worker test rather than silently allowing the race.
   */
  turnWaiting(): boolean {
    const framework = this.room as unknown as {
      _turnQueue?: { queuedCount(): number };
      _submitConcurrency?: { pendingEnqueueCount: number };
    };
    if (!framework._turnQueue || !framework._submitConcurrency) {
      throw new Error("AIChatAgent internals changed: cannot tell whether a turn is queued");
    }
    return framework._turnQueue.queuedCount() > 0 || framework._submitConcurrency.pendingEnqueueCount > 0;
  }
}
