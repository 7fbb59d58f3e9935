/**
 * Private asides, room side (shared/asides.ts). An aside is asked and
 * answered outside the transcript, in a table of its own keyed by its
 * asker: AIChatAgent sends every transcript message to every socket of the
 * room, so a message only one person may see cannot live there. The answer
 * reads what a turn would (the room's system prompt, its memory and window
 * of recent messages) and is one model call, not streamed, so asides never
 * compete with the room's own turn queue. Their tokens count against the
 * room's day. Sharing one appends the question and its answer to the
 * transcript, where everyone sees them live and later turns read them.
 * Nothing here is exported, forked or indexed for search; the table goes
 * with the room's storage when the room is deleted.
 */
import { convertToModelMessages, generateText, type UIMessage } from "ai";
import { AppError } from "@/server/app-error";
import { toTokenUsage } from "@/server/domain/budgets/token-usage";
import type { AssembledContext } from "@/server/domain/memory/context-assembly";
import { normalizeMessage } from "@/server/domain/messages/persisted-message";
import { describeModelError } from "@/server/domain/turns/model-errors";
import { logModelError } from "@/server/log";
import { MODEL_MAX_RETRIES, type ModelConfig, resolveModel } from "@/server/model/provider";
import { type Aside, MAX_ASIDES_PER_PERSON } from "@/shared/asides";
import type { StructuredError } from "@/shared/budgets";
import type { ErrorCode } from "@/shared/errors";
import type { MessageAuthor } from "@/shared/identity";
import type { MessageMetadata, RoomSettings, TokenUsage } from "@/shared/protocol";
import { isWithdrawn } from "@/shared/question-queue";

/** An aside that has not answered in this long is given up, with the reason kept. */
const ASIDE_TIMEOUT_MS = 120_000;

export interface AsidesHost {
  sql: SqlStorage;
  config(): ModelConfig;
  settings(): RoomSettings;
  messageCount(): number;
  /** The room's in-memory window of recent messages. */
  messages(): readonly UIMessage[];
  /** The room's context for a question: system prompt, memory and as much of `history` as fits (room/room-memory.ts). */
  assemble(request: { systemPrompt: string; history: UIMessage[] }): AssembledContext;
  charge(usage: TokenUsage): void;
  /** Why the room may not spend tokens now (its daily budget, or the workspace's), or null (room/budget.ts). */
  refusal(): Promise<StructuredError | null>;
  /** Appends messages to the transcript; everyone connected sees them. */
  append(messages: UIMessage[]): Promise<void>;
}

type AsideRow = {
  id: string;
  question: string;
  answer: string;
  model: string | null;
  error: string | null;
  created_at: number;
  shared_at: number | null;
  shared_message_id: string | null;
  input_tokens: number;
  output_tokens: number;
};

const toAside = (row: AsideRow): Aside => ({
  id: row.id,
  question: row.question,
  answer: row.answer,
  model: row.model,
  error: row.error,
  createdAt: row.created_at,
  sharedAt: row.shared_at,
  sharedMessageId: row.shared_message_id
});

export class RoomAsides {
  constructor(private readonly host: AsidesHost) {
    host.sql.exec(`CREATE TABLE IF NOT EXISTS asides (
      id TEXT PRIMARY KEY, author_id TEXT NOT NULL, question TEXT NOT NULL, answer TEXT NOT NULL,
      model TEXT, error TEXT, created_at INTEGER NOT NULL, shared_at INTEGER, shared_message_id TEXT,
      input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0)`);
    host.sql.exec(`CREATE INDEX IF NOT EXISTS asides_by_author ON asides (author_id, created_at)`);
  }

  /** `who`'s asides in this room, newest first. */
  list(who: MessageAuthor): Aside[] {
    return this.host.sql
      .exec<AsideRow>(`SELECT * FROM asides WHERE author_id = ? ORDER BY created_at DESC, id DESC`, who.id)
      .toArray()
      .map(toAside);
  }

  /** Asks the room's assistant `text` for `who` alone; the aside is kept even when the model failed. */
  async ask(text: string, who: MessageAuthor, now = Date.now()): Promise<Aside> {
    const { host } = this;
    const kept = host.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM asides WHERE author_id = ?`, who.id).one().n;
    if (kept >= MAX_ASIDES_PER_PERSON) {
      throw new AppError(
        "conflict:aside_limit",
        409,
        `You keep ${MAX_ASIDES_PER_PERSON} asides in this room; delete some to ask another.`
      );
    }
    const refusal = await host.refusal();
    if (refusal) throw new AppError(refusal.code as ErrorCode, 429, refusal.message);
    const { answer, model, error, usage } = await this.#answer(text, who);
    const row: AsideRow = {
      id: `as_${crypto.randomUUID()}`,
      question: text,
      answer,
      model,
      error,
      created_at: now,
      shared_at: null,
      shared_message_id: null,
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens
    };
    host.sql.exec(
      `INSERT INTO asides (id, author_id, question, answer, model, error, created_at, input_tokens, output_tokens)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      row.id,
      who.id,
      row.question,
      row.answer,
      row.model,
      row.error,
      row.created_at,
      row.input_tokens,
      row.output_tokens
    );
    return toAside(row);
  }

  /** Puts `who`'s aside into the room: its question (by them) and its answer, marked as a shared aside. */
  async share(asideId: string, who: MessageAuthor, now = Date.now()): Promise<Aside> {
    const row = this.#own(asideId, who);
    if (row.shared_at !== null) {
      throw new AppError("conflict:aside_shared", 409, "This aside is in the room already.");
    }
    if (row.error !== null) {
      throw new AppError("conflict:aside_shared", 409, "This aside has no answer to share; ask it again.");
    }
    const questionId = crypto.randomUUID();
    const aside = { sharedAt: now };
    const question: UIMessage = {
      id: questionId,
      role: "user",
      parts: [{ type: "text", text: row.question }],
      metadata: { author: who, createdAt: row.created_at, aside } satisfies MessageMetadata
    };
    const answer: UIMessage = {
      id: crypto.randomUUID(),
      role: "assistant",
      parts: [{ type: "text", text: row.answer }],
      metadata: {
        createdAt: now,
        answers: questionId,
        aside,
        // What the aside's answer took (an answer without usage reads as one still streaming).
        usage: {
          inputTokens: row.input_tokens,
          outputTokens: row.output_tokens,
          totalTokens: row.input_tokens + row.output_tokens
        },
        ...(row.model ? { model: row.model } : {})
      } satisfies MessageMetadata
    };
    // Marked shared before the append's await: a second share at once is refused, not doubled.
    this.host.sql.exec(`UPDATE asides SET shared_at = ?, shared_message_id = ? WHERE id = ?`, now, questionId, asideId);
    try {
      await this.host.append([question, answer]);
    } catch (error) {
      this.host.sql.exec(`UPDATE asides SET shared_at = NULL, shared_message_id = NULL WHERE id = ?`, asideId);
      throw error;
    }
    return toAside({ ...row, shared_at: now, shared_message_id: questionId });
  }

  /** Deletes `who`'s aside (a shared one stays in the room). */
  delete(asideId: string, who: MessageAuthor): void {
    this.#own(asideId, who);
    this.host.sql.exec(`DELETE FROM asides WHERE id = ?`, asideId);
  }

  /** Someone else's aside does not exist for the caller: 404, as an unknown id. */
  #own(asideId: string, who: MessageAuthor): AsideRow {
    const row = this.host.sql
      .exec<AsideRow>(`SELECT * FROM asides WHERE id = ? AND author_id = ?`, asideId, who.id)
      .toArray()[0];
    if (!row) throw new AppError("not_found:aside", 404, `You have no aside "${asideId}" in this room.`);
    return row;
  }

  async #answer(
    text: string,
    who: MessageAuthor
  ): Promise<{ answer: string; model: string; error: string | null; usage: TokenUsage }> {
    const { host } = this;
    const config = host.config();
    const settings = host.settings();
    const { model, modelId } = resolveModel(config, settings, {
      roomName: settings.name,
      messageCount: host.messageCount(),
      systemPrompt: settings.systemPrompt || null
    });
    const now = Date.now();
    const history = host.messages().flatMap((m) => (isWithdrawn(m) ? [] : (normalizeMessage(m, now) ?? [])));
    const ask: UIMessage = { id: "aside", role: "user", parts: [{ type: "text", text }] };
    const privately = `${who.name} asks you the last question privately: only they see your answer. Answer it from what the room knows.`;
    const context = host.assemble({
      systemPrompt: [settings.systemPrompt, privately].filter(Boolean).join("\n\n"),
      history: [...history, ask]
    });
    try {
      const result = await generateText({
        model,
        system: context.system || undefined,
        messages: await convertToModelMessages(context.messages),
        ...(settings.temperature !== null ? { temperature: settings.temperature } : {}),
        maxRetries: MODEL_MAX_RETRIES,
        abortSignal: AbortSignal.timeout(ASIDE_TIMEOUT_MS)
      });
      const usage = toTokenUsage(result.totalUsage);
      host.charge(usage);
      return { answer: result.text.trim(), model: modelId, error: null, usage };
    } catch (error) {
      logModelError({ error });
      const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
      return { answer: "", model: modelId, error: describeModelError(error, config), usage };
    }
  }
}
