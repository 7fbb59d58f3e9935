/**
 * The room's memory: what its members pinned, the summaries that stand in
 * for messages which left the model's window, and what each answer's
 * context held. A turn asks it for the context (pins and summaries within
 * their budgets, then the window: domain/memory/context-assembly.ts) and
 * tells it what went in; that costs no storage read (both are cached) and
 * one row write, whatever the room's size. Summaries are written by a
 * background job (room/summary-writer.ts) that no turn waits for.
 */
import type { Session } from "agents/sessions";
import type { UIMessage } from "ai";
import { AppError } from "@/server/app-error";
import type { MemoryCall, MemoryCallResults } from "@/server/contracts/room-api";
import { type AssembledContext, assembleContext, type ContextSection } from "@/server/domain/memory/context-assembly";
import type { ProposePinResult } from "@/server/domain/memory/memory-tools";
import { MAX_IMPORTED_SUMMARIES } from "@/server/domain/memory/memory-transfer";
import { pinTextOf } from "@/server/domain/memory/pins";
import { backlogOf, memoryBudgets } from "@/server/domain/memory/summary-plan";
import { PINS_HEADING, SUMMARIES_HEADING, summaryItemText } from "@/server/domain/memory/summary-prompt";
import { IMPORTED_AUTHOR_ID } from "@/server/domain/transfer/imported-room";
import { estimateMessageTokens } from "@/server/domain/turns/context-budget";
import type { ModelConfig } from "@/server/model/provider";
import type { MessageAuthor } from "@/shared/identity";
import {
  type AnswerContext,
  type CreatePinBody,
  MAX_PINS_PER_ROOM,
  type Pin,
  type RoomMemory as RoomMemoryView,
  type UpdatePinBody
} from "@/shared/memory";
import type { MessageMetadata, RoomSettings, TokenUsage } from "@/shared/protocol";
import type { ExportedMemory } from "@/shared/transfer";
import { MemoryStore, toSummary } from "./memory-store";
import { summariser } from "./summary-model";
import { SummaryWriter } from "./summary-writer";

export interface RoomMemoryHost {
  sql: SqlStorage;
  session: () => Session;
  config: () => ModelConfig;
  settings: () => RoomSettings;
  /** The in-memory transcript (the newest part of the room's path). */
  messages: () => readonly UIMessage[];
  /** The in-memory transcript begins with the room's first message. */
  historyStartsAtRoot: () => boolean;
  charge: (usage: TokenUsage) => void;
  keepAlive: () => Promise<() => void>;
  /** Pins or summaries changed: tell the room's clients (they refetch the memory). */
  changed: () => void;
}

export interface ContextRequest {
  systemPrompt: string;
  history: readonly UIMessage[];
  tools?: ReadonlyArray<{ name: string; tokens: number }>;
  /** More sections after the room's memory (retrieved file passages). */
  extra?: readonly ContextSection[];
}

const pinNotFound = (id: string) => new AppError("not_found:pin", 404, `Pin "${id}" is not in this room's memory.`);

export class RoomMemory {
  readonly store: MemoryStore;
  /** Messages the last turn's window left out that no summary covers yet (null: not known since waking). */
  #unsummarised: number | null = null;
  readonly writer: SummaryWriter;

  constructor(private readonly host: RoomMemoryHost) {
    this.store = new MemoryStore(host.sql);
    const budgets = () => memoryBudgets(host.config().contextTokenBudget);
    this.writer = new SummaryWriter({
      sql: host.sql,
      session: host.session,
      store: this.store,
      budgets,
      summarise: summariser(host.config, host.settings, budgets),
      inMemory: (id) => host.messages().some((m) => m.id === id),
      keepAlive: host.keepAlive,
      changed: host.changed,
      // What a turn counted as unsummarised is summarised now: the panel (and
      // the bench, which waits for it) must not go on showing the old count.
      caughtUp: () => {
        if (this.#unsummarised !== 0) {
          this.#unsummarised = 0;
          host.changed();
        }
      },
      charge: host.charge
    });
  }

  #budgets() {
    return memoryBudgets(this.host.config().contextTokenBudget);
  }

  /** The memory sections every context carries: active pins, then the summaries in use. */
  sections(): ContextSection[] {
    const budgets = this.#budgets();
    return [
      {
        kind: "pins",
        heading: PINS_HEADING,
        budget: budgets.pins,
        items: this.store
          .pins()
          .filter((p) => p.status === "active")
          .map((p) => ({ ref: { id: p.id }, text: p.text }))
      },
      {
        kind: "summaries",
        heading: SUMMARIES_HEADING,
        budget: budgets.summaries,
        items: this.store.active().map((s) => ({
          ref: {
            id: s.id,
            fromMessageId: s.from_id,
            toMessageId: s.to_id,
            messageCount: s.message_count,
            level: s.level
          },
          text: summaryItemText({ messageCount: s.message_count, text: s.text })
        }))
      }
    ];
  }

  /** One model request's context: the system message with the room's memory, and the window. */
  assemble(request: ContextRequest): AssembledContext {
    return assembleContext({
      budget: this.host.config().contextTokenBudget,
      systemPrompt: request.systemPrompt,
      sections: [...this.sections(), ...(request.extra ?? [])],
      history: request.history,
      tools: request.tools
    });
  }

  /**
   * Records what an answer's context held, and starts the summary job when
   * enough has left the window unsummarised (never waiting for it).
   */
  saw(traceId: string, speaker: string, context: AssembledContext, now = Date.now()) {
    const coveredUpTo = this.store.active().at(-1)?.to_id ?? null;
    const backlog = backlogOf({
      dropped: context.dropped.map((m) => ({ id: m.id, tokens: estimateMessageTokens(m) })),
      window: new Set(context.messages.map((m) => m.id)),
      coveredUpTo,
      firstUnsummarised: this.writer.firstUnsummarised,
      // Only asked when nothing is summarised (a count the room keeps anyway).
      historyStartsAtRoot: coveredUpTo === null && this.host.historyStartsAtRoot()
    });
    if (backlog.known) context.record.leftOut.messages = backlog.messages;
    this.store.record(traceId, speaker, context.record, now);
    if (context.record.window.fromMessageId) this.writer.windowStartedAt(context.record.window.fromMessageId);
    if (backlog.known) this.#unsummarised = backlog.messages;
    // Unknown: the coverage ends before the turn's history starts. A woken
    // room holds only its newest messages, and when those fit the context
    // nothing is dropped at all; what lies before them was never in any
    // window and is summarised all the same (the job reads it from storage
    // and writes nothing while it is under the trigger). It walks once per
    // window start, not once per turn.
    const due = backlog.known
      ? backlog.tokens >= this.#budgets().trigger
      : context.record.window.fromMessageId !== this.writer.walkedFrom;
    if (due) void this.writer.start();
  }

  // ── The memory panel and its routes ──

  /** One call of the memory routes, by `who` (the server-verified caller). */
  async call(call: MemoryCall, who: MessageAuthor): Promise<MemoryCallResults[MemoryCall["op"]]> {
    switch (call.op) {
      case "view":
        return this.view();
      case "addPin":
        return this.addPin(call.body, who);
      case "updatePin":
        return this.updatePin(call.pinId, call.body, who);
      case "deletePin":
        this.deletePin(call.pinId);
        return null;
      case "rebuild":
        return this.rebuild();
      case "context":
        return this.answerContext(call.messageId);
    }
  }

  view(): RoomMemoryView {
    const budgets = this.#budgets();
    return {
      pins: this.store.pins(),
      summaries: this.store.active().map(toSummary),
      rebuilding: this.writer.rebuilding,
      unsummarised: this.#unsummarised === null ? null : { messageCount: this.#unsummarised },
      budgets: {
        pins: budgets.pins,
        summaries: budgets.summaries,
        contextTokens: this.host.config().contextTokenBudget
      }
    };
  }

  async addPin(body: CreatePinBody, author: MessageAuthor, now = Date.now()): Promise<Pin> {
    if (this.store.pins().length >= MAX_PINS_PER_ROOM) {
      throw new AppError(
        "conflict:pin_limit",
        409,
        `A room keeps at most ${MAX_PINS_PER_ROOM} pins; remove one before adding another.`
      );
    }
    let pin: Omit<Pin, "id" | "updatedAt" | "updatedBy">;
    if ("text" in body) {
      pin = { text: body.text, messageId: null, author, createdAt: now, status: "active", truncated: false };
    } else {
      const message = await this.host.session().getMessage(body.messageId);
      if (!message) throw new AppError("not_found:message", 404, `Message "${body.messageId}" is not in this room.`);
      const taken = pinTextOf(message as unknown as UIMessage);
      if (!taken) throw new AppError("bad_request:body", 400, "That message has no text to pin.");
      pin = { ...taken, messageId: body.messageId, author, createdAt: now, status: "active" };
    }
    const added = this.store.addPin(pin);
    this.host.changed();
    return added;
  }

  /** The assistant's proposal (its `propose_pin` tool): kept out of every context until a member accepts it. */
  proposePin(text: string, now = Date.now()): ProposePinResult {
    if (this.store.pins().length >= MAX_PINS_PER_ROOM) {
      return { proposed: false, reason: "The room's memory is full; a member must remove a pin first." };
    }
    const added = this.store.addPin({
      text,
      messageId: null,
      author: { id: "assistant", name: "Assistant" },
      createdAt: now,
      status: "proposed",
      truncated: false
    });
    this.host.changed();
    return { proposed: true, pinId: added.id };
  }

  updatePin(id: string, body: UpdatePinBody, by: MessageAuthor, now = Date.now()): Pin {
    const pin = this.store.pin(id);
    if (!pin) throw pinNotFound(id);
    const updated = this.store.updatePin(
      id,
      {
        ...(body.text !== undefined ? { text: body.text } : {}),
        ...(body.accepted && pin.status === "proposed" ? { accept: by } : {})
      },
      by,
      now
    );
    this.host.changed();
    return updated;
  }

  deletePin(id: string) {
    if (!this.store.deletePin(id)) throw pinNotFound(id);
    this.host.changed();
  }

  rebuild(): { startedAt: number } {
    const started = this.writer.rebuild();
    this.host.changed();
    return started;
  }

  // ── Export, import, fork ──

  /** Every pin, and the summaries in use, as exports carry them. */
  exportMemory(): ExportedMemory {
    return {
      pins: this.store.pins().map((p) => ({
        text: p.text,
        messageId: p.messageId,
        author: { name: p.author.name },
        createdAt: p.createdAt,
        status: p.status,
        truncated: p.truncated
      })),
      summaries: this.store.active().map((s) => ({
        fromMessageId: s.from_id,
        toMessageId: s.to_id,
        messageCount: s.message_count,
        level: s.level,
        text: s.text,
        model: s.model,
        truncated: s.truncated === 1,
        createdAt: s.created_at
      }))
    };
  }

  /**
   * Writes an import's pins (under the reserved author id: no file names a
   * member of this server) and the summaries whose span this room holds: a
   * fork copies messages up to a point, and keeps the summaries of what it
   * copied. A pin whose message was not copied keeps its text.
   */
  async importMemory(memory: ExportedMemory): Promise<void> {
    const sessionId = this.host.session().sessionId;
    const seqOf = (id: string) =>
      this.host.sql
        .exec<{ seq: number }>(
          `SELECT seq FROM cf_agents_session_messages WHERE session_id = ? AND id = ? AND type = 'message'`,
          sessionId,
          id
        )
        .toArray()[0]?.seq;
    const room = MAX_PINS_PER_ROOM - this.store.pins().length;
    for (const pin of memory.pins.slice(0, Math.max(0, room))) {
      this.store.addPin({
        text: pin.text,
        messageId: pin.messageId !== null && seqOf(pin.messageId) !== undefined ? pin.messageId : null,
        author: { id: IMPORTED_AUTHOR_ID, name: pin.author.name },
        createdAt: pin.createdAt,
        status: pin.status,
        truncated: pin.truncated
      });
    }
    const generation = this.store.generation();
    for (const summary of memory.summaries.slice(0, MAX_IMPORTED_SUMMARIES)) {
      const fromSeq = seqOf(summary.fromMessageId);
      const toSeq = seqOf(summary.toMessageId);
      if (fromSeq === undefined || toSeq === undefined) continue;
      this.store.addSummary(
        {
          generation,
          level: summary.level,
          from_id: summary.fromMessageId,
          to_id: summary.toMessageId,
          from_seq: fromSeq,
          to_seq: toSeq,
          message_count: summary.messageCount,
          text: summary.text,
          model: summary.model,
          truncated: summary.truncated ? 1 : 0
        },
        summary.createdAt
      );
    }
    if (memory.pins.length > 0 || memory.summaries.length > 0) this.host.changed();
  }

  /** What went into an answer's context, with the pins and summaries it names as they read now. */
  async answerContext(messageId: string): Promise<AnswerContext> {
    const message = (await this.host.session().getMessage(messageId)) as unknown as UIMessage | null;
    if (!message) throw new AppError("not_found:message", 404, `Message "${messageId}" is not in this room.`);
    const metadata = (message.metadata ?? {}) as MessageMetadata;
    const found =
      message.role === "assistant" && metadata.traceId
        ? this.store.recordOf(metadata.traceId, metadata.persona?.id ?? "assistant")
        : null;
    if (!found) {
      throw new AppError(
        "not_found:context",
        404,
        message.role === "assistant"
          ? "This answer has no record of its context (it was written before the room kept them, or imported)."
          : "Only answers have a context; this message was written by a person."
      );
    }
    const { record, createdAt } = found;
    return {
      messageId,
      createdAt,
      speaker: metadata.persona
        ? { kind: "persona", id: metadata.persona.id, name: metadata.persona.name }
        : { kind: "assistant" },
      record,
      pins: record.pins.map((ref) => {
        const pin = this.store.pin(ref.id);
        return { id: ref.id, text: pin?.text ?? null, tokens: ref.tokens, changed: !pin || pin.updatedAt > createdAt };
      }),
      summaries: record.summaries.map((ref) => ({ ...ref, text: this.store.summary(ref.id)?.text ?? null }))
    };
  }
}
