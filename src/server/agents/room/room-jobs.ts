/**
 * A room's jobs, made and wired to each other in one place: who traces,
 * who counts, who guards, who reports to whom. ChatRoom keeps the
 * framework's hooks and its RPC surface, and calls these; the jobs depend
 * on the small slices of the room they are handed here, never on the
 * ChatRoom class (which would make every job and the class one import
 * circle).
 *
 * What the room adds by hand to AIChatAgent, and where:
 * - settings (name, system prompt, model) in the agent state, which the
 *   framework keeps in this facet's SQLite and pushes to every client
 *   (room/room-state.ts);
 * - activity reports to the parent, so the room list stays current without
 *   the overseer ever waking rooms to count their messages (room/activity.ts),
 *   carrying a live report of the room (room/room-introspection.ts);
 * - a REST send path, because AIChatAgent only speaks WebSocket
 *   (room/rest-bridge.ts);
 * - checks on every frame a socket sends (room/frame-guard.ts), and edits
 *   and regenerations kept as versions, never rewritten (room/branches.ts);
 * - presence and typing, which are ephemeral and never persisted
 *   (room/presence.ts); read marks (room/room-reads.ts);
 * - the assistant's model call: provider, context window, tools, answer
 *   metadata (room/assistant-turn.ts);
 * - personas and panels (room/room-personas.ts), delegated tasks
 *   (room/delegation.ts), traces (room/turn-trace.ts), daily token budgets
 *   (room/budget.ts, room/usage-ledger.ts), memory (room/room-memory.ts);
 * - error and stop marks on answers, so a reload still shows why an answer
 *   ended early (room/turn-end.ts);
 * - files: records and their index (room/room-files.ts), the bytes in R2;
 * - history pages, export, import and fork (room/history-pages.ts,
 *   room/room-transfer.ts, room/origin.ts);
 * - emoji reactions on messages, in a table of their own (room/room-reactions.ts);
 * - the turn's order: trace, budget, who answers, the answer, how it ends
 *   (room/turn-sequence.ts).
 *
 * A new job: make it here (after what it uses), add it to the returned
 * object, and call it from ChatRoom's hooks or RPC methods.
 */
import type { Connection, ConnectionContext } from "agents";
import { PERSONA_ANSWER_TIMEOUT_MS } from "@/server/agents/persona-turns";
import { taskLimits } from "@/server/agents/task-agent";
import type { IdentityLimits } from "@/server/domain/access/identity-limits";
import { memoryBudgets } from "@/server/domain/memory/summary-plan";
import { replyTargetOf } from "@/server/domain/messages/reply-rules";
import { ThrottledReports } from "@/server/domain/rooms/throttled-reports";
import { BoundedWindow } from "@/server/domain/turns/memory-window";
import type { Env } from "@/server/env";
import { readModelConfig } from "@/server/model/provider";
import { RoomActivityLog, sendActivityReport } from "./activity";
import { AutoResponder } from "./auto-responder";
import { RoomBranches } from "./branches";
import { RoomBudget } from "./budget";
import { RoomDelegation } from "./delegation";
import { FrameGuard } from "./frame-guard";
import { LiveTurns } from "./live-turns";
import { type ToolInternals, toolJobs } from "./mcp-jobs";
import { sendOpeningFrame } from "./opening-frame";
import { RoomOriginRecord } from "./origin";
import { OutboxSends } from "./outbox-sends";
import { OverseerLink } from "./overseer-link";
import { RoomPresence } from "./presence";
import { RestTurnBridge } from "./rest-bridge";
import { RoomAsides } from "./room-asides";
import { RoomAttachments } from "./room-attachments";
import { RoomCatchUp } from "./room-catch-up";
import type { RoomCore } from "./room-core";
import { RoomFiles } from "./room-files";
import { RoomIntrospection } from "./room-introspection";
import { RoomMemory } from "./room-memory";
import { RoomMentions } from "./room-mentions";
import { RoomPersonas } from "./room-personas";
import { QuestionQueue } from "./room-queue";
import { RoomReactions } from "./room-reactions";
import { RoomReads, reportReadsToOverseer } from "./room-reads";
import { RoomTransfer } from "./room-transfer";
import { summariser } from "./summary-model";
import { RoomTraceStore } from "./trace-store";
import { TurnSequence } from "./turn-sequence";
import { RoomTracer } from "./turn-trace";
import { UsageLedger } from "./usage-ledger";

/** What only the class can reach (the framework keeps them protected). */
export interface RoomInternals extends ToolInternals {
  env: Env;
  ctx: DurableObjectState;
  /** Each sender's allowance across every workspace, held by its LimitKeeper (agents/identity-limit-client.ts). */
  identityLimits: IdentityLimits;
  /** Whether an answer is streaming now (the framework's resumable stream). */
  streaming(): boolean;
  /** Resolves once every frame the room has broadcast so far is delivered (room/broadcast-batch.ts). */
  broadcastsDelivered(): Promise<void>;
}

/** The room's stores and logs: what it keeps and counts of itself, its memory and files, its overseer link. */
function storeJobs(room: RoomCore, { env, ctx, streaming }: RoomInternals) {
  const sql = room.sql.bind(room);
  /** Keeps `room.messages` to the hydration window while the room is awake (see TurnSequence.finish). */
  const window = new BoundedWindow(room.hydrationByteBudget);
  const activity = new RoomActivityLog(sql, () => room.sessions.session().sessionId);
  /** Edits and regenerations, written as new versions beside what they replace (room/branches.ts). */
  const branches = new RoomBranches(room, activity, () => streaming());
  /** Where a fork came from (room/origin.ts). */
  const origin = new RoomOriginRecord(sql);
  /** Trace of every turn (room/turn-trace.ts). Spans left open by an eviction are closed on wake. */
  const tracer = new RoomTracer(new RoomTraceStore(ctx.storage.sql, () => room.name));
  const outbox = new OutboxSends({
    messages: () => room.messages,
    isStoredBeyondWindow: async (id) => (await room.sessions.session().getMessage(id)) !== null,
    getConnection: (id) => room.getConnection(id)
  });
  /** Provider-reported tokens per UTC day (budgets, status). */
  const usageLedger = new UsageLedger(ctx.storage.sql);
  /** The room's one stub to its overseer, for every call the room makes to it (room/overseer-link.ts). */
  const overseer = new OverseerLink(env, () => room.parentPath.at(-1)?.name);
  /** Pins, summaries and what each answer saw (room/room-memory.ts). */
  const memory = new RoomMemory({
    sql: ctx.storage.sql,
    session: () => room.sessions.session(),
    config: () => readModelConfig(env),
    settings: () => room.state.settings,
    messages: () => room.messages,
    historyStartsAtRoot: () => activity.visibleCount() <= room.messages.length,
    charge: (usage) => usageLedger.add(usage),
    keepAlive: () => room.keepAlive(),
    changed: () => room.setState({ ...room.state, memory: { revision: (room.state.memory?.revision ?? 0) + 1 } })
  });
  /** The room's files: records and their index (room/room-files.ts); the bytes are in R2. */
  const files = new RoomFiles({ sql: ctx.storage.sql, broadcast: (message) => room.broadcast(message) });
  /** The room's files as messages and turns use them (room/room-attachments.ts). */
  const attachments = new RoomAttachments({
    files,
    env,
    roomId: () => room.name,
    parentPath: () => room.parentPath,
    settings: () => room.state.settings
  });
  return { sql, window, activity, branches, origin, tracer, outbox, usageLedger, overseer, memory, files, attachments };
}

/** What people and models do in the room: frames, sends, presence, personas, tasks, read marks, transfers. */
function conversationJobs(room: RoomCore, internals: RoomInternals, stores: ReturnType<typeof storeJobs>) {
  const { env, ctx } = internals;
  const { sql, activity, branches, origin, tracer, outbox, usageLedger, overseer, memory, files, attachments } = stores;
  /** A reply's original: one lookup by id in the room's storage, any version (domain/messages/reply-rules.ts). */
  const replyTarget = async (id: string) => replyTargetOf(await room.sessions.session().getMessage(id));
  const frameGuard = new FrameGuard(
    {
      get messages() {
        return room.messages;
      },
      messageCount: () => room.messageCount(),
      // Edits and regenerations the chat-request guard planned (room/branches.ts).
      writeBranch: (branch) => branches.write(branch),
      // A socket send's file parts: only this room's files (room/room-attachments.ts).
      fileOf: (url) => attachments.fileOf(url),
      replyTarget,
      // The overseer makes them a member with the report their message sets off (room/activity.ts).
      talked: ({ id, name, kind }) => activity.talked({ id, name, kind })
    },
    env.RATE_LIMIT_SCALE,
    (messageId, traceparent) => tracer.arrive(messageId, traceparent, "websocket"),
    outbox,
    internals.identityLimits
  );
  const rest = new RestTurnBridge(room, tracer, { replyTarget });
  const personas = new RoomPersonas(
    room,
    () => readModelConfig(env),
    () => Number(env.PERSONA_TIMEOUT_MS) || PERSONA_ANSWER_TIMEOUT_MS,
    {
      startRun: (persona, attempt = 1) =>
        tracer.startAgent(persona.id, attempt > 1 ? `${persona.name} (retry)` : persona.name, { kind: "persona" }),
      charge: (usage) => usageLedger.add(usage),
      // `memory` is made below: reach it when a turn runs, not now.
      memory: {
        assemble: (request) => memory.assemble(request),
        saw: (traceId, speaker, context) => memory.saw(traceId, speaker, context)
      },
      files: attachments.forTurn(),
      // `reactions` is made below too.
      react: (messageId, emoji, who) => reactions.add(messageId, emoji, who)
    }
  );
  const presence = new RoomPresence(room);
  /** Emoji reactions on messages (room/room-reactions.ts). */
  const reactions = new RoomReactions({
    sql: ctx.storage.sql,
    hasMessage: async (id) => (await room.sessions.session().getMessage(id)) !== null,
    broadcast: (message) => room.broadcast(message)
  });
  /** Persona and panel turns, announced so anyone in the room can stop them (room/live-turns.ts). */
  const liveTurns = new LiveTurns(room);
  /** Readers' `rooms_read` frames, turned into read marks at the overseer (room/room-reads.ts). */
  const reads = new RoomReads(
    { messages: () => room.messages, messageCount: () => activity.visibleCount() },
    (pending) => reportReadsToOverseer(overseer, room.name, pending),
    (promise) => ctx.waitUntil(promise)
  );
  const delegation = new RoomDelegation(
    room,
    (message) => personas.upsert(message),
    () => taskLimits(env),
    {
      startRun: (runId, name, toolCallId) =>
        tracer.startAgent(runId, name, { kind: "task", parentToolCallId: toolCallId }),
      charge: (usage) => usageLedger.add(usage)
    }
  );
  /** Export, import and fork, the room's half (room/room-transfer.ts). */
  const transfer = new RoomTransfer({
    roomId: () => room.name,
    session: () => room.sessions.session(),
    sql,
    settings: () => room.state.settings,
    personas: () => personas.personas(),
    origin,
    originChanged: (from) => room.setState({ ...room.state, origin: from }),
    memory,
    reactions,
    files,
    fileUrl: (fileId) => attachments.url(fileId)
  });
  return {
    frameGuard,
    rest,
    personas,
    presence,
    reactions,
    liveTurns,
    reads,
    delegation,
    transfer,
    ...speakingJobs(room, internals, stores, personas)
  };
}

/** Who hears of a message and whether the assistant speaks: mentions, auto mode, the queue, catch me up. */
function speakingJobs(
  room: RoomCore,
  { env, ctx }: RoomInternals,
  { overseer, usageLedger, activity, branches, tracer }: ReturnType<typeof storeJobs>,
  personas: RoomPersonas
) {
  /** Mentions of people in a turn's question, to the overseer's notifications (room/room-mentions.ts). */
  const mentions = new RoomMentions({
    roomId: () => room.name,
    messages: () => room.messages,
    storedMessage: (id) => room.sessions.session().getMessage(id),
    personas: () => personas.personas(),
    overseer,
    waitUntil: (promise) => ctx.waitUntil(promise)
  });
  /** Auto mode: whether the assistant answers a message that names no one (room/auto-responder.ts). */
  const auto = new AutoResponder({
    config: () => readModelConfig(env),
    settings: () => room.state.settings,
    charge: (usage) => usageLedger.add(usage)
  });
  /** Questions waiting for the AI, which their authors may withdraw (room/room-queue.ts). */
  const queue = new QuestionQueue({
    messages: () => room.messages,
    upsert: (message) => personas.upsert(message),
    turnWaiting: () => branches.turnWaiting(),
    isAnswering: (id) => tracer.isAnswering(id),
    forgetArrival: (id) => tracer.forget(id)
  });
  /** Catch me up: what a reader missed, summed up for them alone (room/room-catch-up.ts). */
  const catchUp = new RoomCatchUp({
    session: () => room.sessions.session(),
    visibleCount: () => activity.visibleCount(),
    summarise: summariser(
      () => readModelConfig(env),
      () => room.state.settings,
      () => memoryBudgets(readModelConfig(env).contextTokenBudget)
    ),
    charge: (usage) => usageLedger.add(usage)
  });
  return { mentions, auto, queue, catchUp };
}

/** What the room knows of itself and tells its overseer: budgets, introspection, activity reports. */
function reportingJobs(
  room: RoomCore,
  { env, ctx }: RoomInternals,
  { tracer, usageLedger, overseer, activity }: ReturnType<typeof storeJobs>,
  { personas }: ReturnType<typeof conversationJobs>
) {
  /** Daily token budgets, the room's and its workspace's (room/budget.ts). */
  const budget = new RoomBudget({
    env,
    dailyTokenBudget: () => room.state.settings.dailyTokenBudget,
    usedToday: () => usageLedger.today(),
    roomId: () => room.name,
    overseer
  });
  const introspection = new RoomIntrospection(
    {
      connections: () => room.getConnections(),
      storageBytes: () => ctx.storage.sql.databaseSize,
      roomId: () => room.name,
      roomName: () => room.state.settings.name,
      messageCount: () => room.messageCount(),
      totalUsage: () => room.state.usage,
      usedToday: () => usageLedger.today()
    },
    tracer,
    personas,
    budget
  );
  /** Activity reports to the overseer, coalesced: at most one per interval (room/activity.ts). */
  const reports = new ThrottledReports(
    () =>
      sendActivityReport({
        overseer,
        roomId: () => room.name,
        live: () => introspection.liveReport(),
        activity: () => activity.next(room.messages),
        learn: (figure, tokensToday) => budget.learn(figure, tokensToday)
      }),
    (promise) => ctx.waitUntil(promise)
  );
  return { budget, introspection, reports };
}

export function roomJobs(room: RoomCore, internals: RoomInternals) {
  const stores = storeJobs(room, internals);
  const conversation = conversationJobs(room, internals, stores);
  const reporting = reportingJobs(room, internals, stores, conversation);
  /** MCP servers, tool policies and approvals by people (room/mcp-jobs.ts). */
  const tools = toolJobs(room, internals, stores.overseer);
  /** The turn, in order (room/turn-sequence.ts). */
  const turns = new TurnSequence(room, () => readModelConfig(internals.env), {
    ...stores,
    ...conversation,
    ...reporting,
    tools,
    broadcasts: { delivered: internals.broadcastsDelivered }
  });
  /** Private asides: one person's question to the assistant, kept outside the transcript (room/room-asides.ts). */
  const asides = new RoomAsides({
    sql: internals.ctx.storage.sql,
    config: () => readModelConfig(internals.env),
    settings: () => room.state.settings,
    messageCount: () => room.messageCount(),
    messages: () => room.messages,
    assemble: (request) => stores.memory.assemble(request),
    charge: (usage) => stores.usageLedger.add(usage),
    refusal: () => reporting.budget.refusal(),
    append: async (messages) => {
      for (const message of messages) await conversation.personas.upsert(message);
      reporting.reports.request();
    }
  });
  /** A socket that asks gets the room's newest page, state and presence in one frame (room/opening-frame.ts). */
  const opening = (connection: Connection, ctx: ConnectionContext) =>
    sendOpeningFrame(connection, ctx, {
      newestPage: (limit) => room.listMessages({ limit }),
      state: () => room.state,
      presence: () => conversation.presence.users()
    });
  return { ...stores, ...conversation, ...reporting, tools, turns, asides, opening };
}
