/**
 * The room's side of personas: decides who answers a turn (mentions.ts),
 * runs persona answers (persona-turns.ts) and writes them into the room's
 * transcript. Kept out of chat-room.ts so the agent class stays a thin
 * wiring of framework hooks.
 */

import type { AIChatAgent } from "@cloudflare/ai-chat";
import { MessageType } from "@cloudflare/ai-chat/types";
import { convertToModelMessages, type UIMessage } from "ai";
import { PersonaAgent, type PersonaFootprint } from "@/server/agents/persona-agent";
import {
  PERSONA_ANSWER_TIMEOUT_MS,
  type PersonaAnswer,
  type PersonaAnswerer,
  type PersonaTurnHost,
  runPersonaAnswers
} from "@/server/agents/persona-turns";
import { AppError } from "@/server/app-error";
import { addUsage } from "@/server/domain/budgets/token-usage";
import type { AssembledContext, ContextSection } from "@/server/domain/memory/context-assembly";
import { withReplyQuotes } from "@/server/domain/messages/reply-rules";
import { planTurn, type TurnPlan } from "@/server/domain/personas/mentions";
import {
  type PanelResult,
  panelInstructions,
  SYNTHESIS_SYSTEM_PROMPT,
  synthesisRequest
} from "@/server/domain/personas/panel";
import { transcriptFor } from "@/server/domain/personas/persona-context";
import { addPersona, personaNotFound, removePersona, updatePersona } from "@/server/domain/personas/persona-roster";
import type { Env } from "@/server/env";
import { activeModelId, isOffline, type ModelConfig } from "@/server/model/provider";
import type { MessageAuthor } from "@/shared/identity";
import type { CreatePersonaBody, Persona, UpdatePersonaBody } from "@/shared/personas";
import type { MessageMetadata, RoomState, TokenUsage } from "@/shared/protocol";
import { ReactionBody } from "@/shared/reactions";
import { type PassageSource, turnPassages } from "./turn-passages";
import type { AgentRun } from "./turn-trace";

type RoomAgent = AIChatAgent<Env, RoomState> & { messageCount(): number };

/** What persona turns need of the room's memory (room/room-memory.ts). */
interface PersonaMemory {
  assemble(request: {
    systemPrompt: string;
    history: readonly UIMessage[];
    extra?: readonly ContextSection[];
  }): AssembledContext;
  saw(traceId: string, speaker: string, context: AssembledContext): void;
}

export interface TurnInput {
  /** The question this turn answers (contextForTurn). */
  answering: string | null;
  /** The threaded conversation, ending with the question. */
  messages: UIMessage[];
}

/** What a persona or panel turn gets from the framework's turn. */
export interface TurnControl {
  signal?: AbortSignal;
  /** Who stopped the turn, if someone did. */
  stoppedBy?: () => MessageAuthor | undefined;
  /** A regeneration's empty version, which the answer fills in. */
  into?: { id: string; versionOf: string; version: number };
}

function textOf(message: UIMessage | undefined): string {
  return (message?.parts ?? [])
    .filter((part): part is { type: "text"; text: string } => part.type === "text")
    .map((part) => part.text)
    .join("");
}

export class RoomPersonas {
  /** Transcript writes from parallel answers, one at a time. */
  #writes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly room: RoomAgent,
    private readonly config: () => ModelConfig,
    private readonly answerTimeoutMs: () => number = () => PERSONA_ANSWER_TIMEOUT_MS,
    /** Tracing and budgets: each answer's span and live node, and its provider-reported usage charged to the day. */
    private readonly hooks: {
      startRun?: (persona: Persona, attempt?: number) => AgentRun;
      charge?: (usage: TokenUsage) => void;
      /** The room's memory: personas see the same pins and summaries as the assistant (room/room-memory.ts). */
      memory: PersonaMemory;
      /** The room's files: personas get the same passages for a question as the assistant (room/turn-passages.ts). */
      files?: PassageSource;
      /** A persona's reaction, written like a person's (room/room-reactions.ts). */
      react: (messageId: string, emoji: string, who: MessageAuthor) => Promise<unknown>;
    }
  ) {}

  // ── The roster, kept in the room's synced state ──

  personas(): Persona[] {
    return this.room.state.personas ?? [];
  }

  create(body: CreatePersonaBody): Persona {
    const { list, persona } = addPersona(this.personas(), body, Date.now());
    this.room.setState({ ...this.room.state, personas: list });
    return persona;
  }

  update(personaId: string, patch: UpdatePersonaBody): Persona {
    const { list, persona } = updatePersona(this.personas(), personaId, patch);
    this.room.setState({ ...this.room.state, personas: list });
    return persona;
  }

  /** Off the roster first, then the facet and everything it stored. */
  async delete(personaId: string): Promise<void> {
    this.room.setState({ ...this.room.state, personas: removePersona(this.personas(), personaId) });
    await this.room.dynamicAgents.delete(PersonaAgent, personaId);
  }

  /**
   * A persona's `react` tool, called back from its facet: the reaction goes
   * under the persona's name ("@Ada"), and only while it is in the roster.
   */
  async reactAs(personaId: string, messageId: string, emoji: string): Promise<{ reacted: true; emoji: string }> {
    const persona = this.personas().find((p) => p.id === personaId);
    if (!persona) throw personaNotFound(personaId);
    if (!ReactionBody.shape.emoji.safeParse(emoji).success) {
      throw new AppError("bad_request:body", 400, "emoji must be a single emoji, e.g. 👍");
    }
    await this.hooks.react(messageId, emoji, { id: `persona:${persona.id}`, name: `@${persona.name}` });
    return { reacted: true, emoji };
  }

  async footprint(personaId: string): Promise<PersonaFootprint & { registered: boolean }> {
    const registered = this.room.dynamicAgents.has(PersonaAgent, personaId);
    const persona = await this.room.dynamicAgents.get(PersonaAgent, personaId);
    return { ...(await persona.footprint()), registered };
  }

  /** The footprint of a persona that has run; null for one that has not (asking it would create its facet). */
  async footprintIfRan(personaId: string): Promise<PersonaFootprint | null> {
    return this.room.dynamicAgents.has(PersonaAgent, personaId) ? this.footprint(personaId) : null;
  }

  // ── Turns ──

  /**
   * Who answers this turn. Continuations always stay with the assistant; a
   * regenerated persona answer goes back to that persona (while it is in the room).
   */
  plan(turn: TurnInput, continuation: boolean, regenerating: UIMessage | null = null): TurnPlan {
    if (continuation || !turn.answering) return { kind: "assistant" };
    const askedAgain = (regenerating?.metadata as MessageMetadata | undefined)?.persona;
    const persona = askedAgain && this.personas().find((p) => p.id === askedAgain.id);
    if (persona) return { kind: "personas", personas: [persona], panel: false };
    const question = this.room.messages.find((m) => m.id === turn.answering);
    return planTurn(textOf(question), this.room.state.settings.defaultResponder ?? "assistant", this.personas());
  }

  /**
   * Runs a turn the assistant does not answer. Returns a body-less
   * Response: AIChatAgent then ends the turn without an assistant message.
   */
  async runWithoutAssistant(
    plan: Extract<TurnPlan, { kind: "nobody" | "personas" }>,
    turn: TurnInput,
    control: TurnControl
  ): Promise<Response> {
    if (plan.kind === "nobody") {
      await this.#markNoReply(turn.answering);
      return new Response(null);
    }
    await this.answer(plan.personas, turn, control);
    return new Response(null);
  }

  /**
   * A panel's fan-out: every persona answers the question at once. Returns
   * the synthesis request for the assistant, or null when the turn was
   * stopped (then there is nothing to sum up).
   */
  async runPanel(
    plan: Extract<TurnPlan, { kind: "panel" }>,
    turn: TurnInput,
    control: TurnControl
  ): Promise<{ system: string; prompt: string } | null> {
    const names = plan.personas.map((p) => p.name);
    const answers = await this.answer(plan.personas, turn, {
      ...control,
      panel: true,
      instructions: panelInstructions(plan.question, names)
    });
    if (control.signal?.aborted) return null;
    const results: PanelResult[] = answers.map((a) => ({
      name: a.persona.name,
      status: a.status,
      text: a.text,
      ...(a.error ? { error: a.error } : {})
    }));
    return { system: SYNTHESIS_SYSTEM_PROMPT, prompt: synthesisRequest(plan.question, results) };
  }

  /** Every persona answers at once into its own message; resolves when all have ended. */
  async answer(
    personas: readonly Persona[],
    turn: TurnInput,
    options: TurnControl & { instructions?: string; panel?: boolean }
  ): Promise<PersonaAnswer[]> {
    const answers = await runPersonaAnswers(this.#host(turn), personas, {
      answering: turn.answering,
      timeoutMs: this.answerTimeoutMs(),
      ...options
    });
    let usage = this.room.state.usage;
    for (const answer of answers) {
      if (!answer.usage) continue;
      usage = addUsage(usage, answer.usage);
      this.hooks.charge?.(answer.usage);
    }
    if (usage !== this.room.state.usage) this.room.setState({ ...this.room.state, usage });
    // Reactions alone leave the question without an answer in words: it is settled, not queued again.
    if (answers.length > 0 && answers.every((a) => a.reaction)) await this.#markNoReply(turn.answering);
    return answers;
  }

  /** A question nobody answers is marked, so later turns do not take it as theirs (turn-context.ts). */
  async #markNoReply(id: string | null) {
    const question = this.room.messages.find((m) => m.id === id);
    if (!question) return;
    await this.upsert({ ...question, metadata: { ...((question.metadata ?? {}) as MessageMetadata), noReply: true } });
  }

  /** Takes a message back out of the transcript, serialised with other writes; every client gets the window without it. */
  remove(messageId: string): Promise<void> {
    const write = this.#writes.then(async () => {
      await this.room.sessions.session().deleteMessages([messageId]);
      this.room.messages = this.room.messages.filter((m) => m.id !== messageId);
      this.room.broadcast(JSON.stringify({ type: MessageType.CF_AGENT_CHAT_MESSAGES, messages: this.room.messages }));
    });
    this.#writes = write.catch(() => {});
    return write;
  }

  upsert(message: UIMessage): Promise<void> {
    const write = this.#writes.then(async () => {
      const exists = this.room.messages.some((m) => m.id === message.id);
      await this.room.persistMessages(
        exists ? this.room.messages.map((m) => (m.id === message.id ? message : m)) : [...this.room.messages, message]
      );
      // A regeneration's version was stored before the turn: writing it is an
      // update, which the framework's in-memory list does not add.
      if (!this.room.messages.some((m) => m.id === message.id)) {
        const stored = await this.room.sessions.session().getMessage(message.id);
        if (stored) this.room.messages = [...this.room.messages, stored as UIMessage];
      }
    });
    this.#writes = write.catch(() => {});
    return write;
  }

  #host(turn: TurnInput): PersonaTurnHost {
    const config = this.config();
    const settings = () => this.room.state.settings;
    return {
      settings,
      messageCount: () => this.room.messageCount(),
      contextFor: async (persona, traceId) => {
        const history = transcriptFor(persona.id, withReplyQuotes(turn.messages));
        const memory = this.hooks.memory;
        const files = this.hooks.files;
        const { extra } = files ? turnPassages(history, files, config.contextTokenBudget) : { extra: [] };
        const context = memory.assemble({ systemPrompt: persona.systemPrompt, history, extra });
        if (traceId) memory.saw(traceId, persona.id, context);
        return { messages: await convertToModelMessages(context.messages), memory: context.memory };
      },
      persona: async (id) => (await this.room.dynamicAgents.get(PersonaAgent, id)) as unknown as PersonaAnswerer,
      upsert: (message) => this.upsert(message),
      remove: (messageId) => this.remove(messageId),
      relay: (message) => this.room.broadcast(JSON.stringify({ type: MessageType.CF_AGENT_MESSAGE_UPDATED, message })),
      startRun: this.hooks.startRun,
      modelLabel: (persona) => ({
        model: activeModelId(config, { model: persona.model ?? settings().model }),
        offline: isOffline(config)
      })
    };
  }
}
