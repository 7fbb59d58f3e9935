// A room keeps a copy of its workspace's budget (domain/budgets/workspace-budget-cache.ts):
// a turn on a fresh copy calls no overseer before its model request, and a
// workspace over its budget still refuses in every room.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RoomTraceStore } from "@/server/agents/room/trace-store";
import { FIGURE_MAX_AGE_MS } from "@/server/domain/budgets/workspace-budget-cache";
import { ChatRoom, OverseerAgent } from "@/server/index";
import type { WorkspaceStatus } from "@/shared/introspection";
import { waitFor } from "../support/wait";
import {
  api,
  chatRequest,
  connect,
  createRoom,
  history,
  isDone,
  roomPath,
  type SignedIn,
  uniqueName,
  workspaceAdmin
} from "./helpers";

/** Each workspace's admin (only an admin sets its budget). */
const admins = new Map<string, SignedIn>();
async function setBudget(ws: string, dailyTokenBudget: number) {
  let admin = admins.get(ws);
  if (!admin) {
    admin = await workspaceAdmin(ws);
    admins.set(ws, admin);
  }
  return api(`/api/workspaces/${ws}/settings`, { method: "PATCH", json: { dailyTokenBudget }, headers: admin.headers });
}

/** In order: every call a room made to its overseer, the rooms' model requests, and the test's sends. */
type Event =
  | { kind: "overseer"; method: string; ws: string; room: string; detail?: unknown; at: number }
  | { kind: "model"; room: string }
  | { kind: "send"; room: string }
  | { kind: "void"; room: string };
const events: Event[] = [];

// Every method a room calls on its overseer (the framework's own relay of the
// turn's frames, `_cf_broadcastToSubAgent`, is the frame path, not the room's).
const OVERSEER_METHODS = ["workspaceBudget", "recordRoomActivity", "recordReads"] as const;
type Patched = Record<string, (...args: unknown[]) => unknown>;
const originals: Record<string, (...args: unknown[]) => unknown> = {};
let originalStart: RoomTraceStore["start"];
let originalVoid: ChatRoom["voidWorkspaceBudget"];

beforeAll(() => {
  const overseer = OverseerAgent.prototype as unknown as Patched;
  for (const method of OVERSEER_METHODS) {
    const original = overseer[method];
    originals[method] = original;
    overseer[method] = function (this: OverseerAgent, ...args: unknown[]) {
      const room = args[0] as string;
      const detail = method === "recordRoomActivity" ? args[1] : undefined;
      events.push({ kind: "overseer", method, ws: this.name, room, detail, at: Date.now() });
      return original.apply(this, args);
    };
  }
  originalStart = RoomTraceStore.prototype.start;
  RoomTraceStore.prototype.start = function (this: RoomTraceStore, ...args: Parameters<RoomTraceStore["start"]>) {
    if (args[0].kind === "model") {
      events.push({ kind: "model", room: (this as unknown as { roomId: () => string }).roomId() });
    }
    return originalStart.apply(this, args);
  };
  originalVoid = ChatRoom.prototype.voidWorkspaceBudget;
  ChatRoom.prototype.voidWorkspaceBudget = function (this: ChatRoom, epoch: number) {
    events.push({ kind: "void", room: this.name });
    return originalVoid.call(this, epoch);
  };
});

afterAll(() => {
  const overseer = OverseerAgent.prototype as unknown as Patched;
  for (const method of OVERSEER_METHODS) overseer[method] = originals[method];
  RoomTraceStore.prototype.start = originalStart;
  ChatRoom.prototype.voidWorkspaceBudget = originalVoid;
});

async function status(ws: string): Promise<WorkspaceStatus> {
  return (await api(`/api/workspaces/${ws}/status`)).json();
}

/** The room's report after its turn ended (idle, with the turn's messages), which the overseer answered. */
function settledReport(ws: string, room: string, messages: number) {
  return waitFor(
    async () =>
      events.some((e) => {
        if (e.kind !== "overseer" || e.ws !== ws || e.method !== "recordRoomActivity" || e.room !== room) return false;
        const activity = e.detail as { messageCount: number; live?: { status: string } };
        return activity.messageCount === messages && activity.live?.status === "idle";
      }),
    (seen) => seen,
    20_000,
    `room ${room}'s report of ${messages} messages, idle`
  );
}

/** What the room asked of its overseer between the test's send and the room's model request (or its end). */
function overseerCallsBeforeModel(ws: string, room: string, sendIndex: number): Event[] {
  const after = events.slice(sendIndex);
  const model = after.findIndex((e) => e.kind === "model" && e.room === room);
  return (model === -1 ? after : after.slice(0, model)).filter((e) => e.kind === "overseer" && e.ws === ws);
}

async function turn(socket: Awaited<ReturnType<typeof connect>>, room: string, text: string) {
  const { id, frame } = chatRequest(text);
  const sendIndex = events.length;
  events.push({ kind: "send", room });
  socket.send(frame);
  await socket.next(isDone(id), 20_000);
  return sendIndex;
}

describe("a room's copy of its workspace's budget", () => {
  it("lets a turn reach its model with no call to the overseer first, and a lowered budget still refuses at once", async () => {
    const ws = uniqueName();
    expect((await setBudget(ws, 1_000_000)).status).toBe(200);
    const room = await createRoom(ws);
    const socket = await connect(roomPath(ws, room.id));
    await turn(socket, room.id, "first");
    let messages = 2;
    await settledReport(ws, room.id, messages);

    // Known under budget: the turn's model request comes before any call to the overseer.
    // (A copy that outlived its 5 s before the turn on a stalled machine is not
    // this case: the turn rightly asks, and the test tries again, up to 3 times.)
    let calls: Event[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const answered = events.filter(
        (e) => e.kind === "overseer" && e.method === "recordRoomActivity" && e.room === room.id
      );
      const lastAnswerAt = (answered.at(-1) as { at: number }).at;
      const sent = await turn(socket, room.id, `second, try ${attempt}`);
      messages += 2;
      expect(events.slice(sent).some((e) => e.kind === "model" && e.room === room.id)).toBe(true);
      calls = overseerCallsBeforeModel(ws, room.id, sent);
      await settledReport(ws, room.id, messages);
      const aged = calls.some(
        (e) => e.kind === "overseer" && e.method === "workspaceBudget" && e.at - lastAnswerAt > FIGURE_MAX_AGE_MS
      );
      if (!aged) break;
    }
    expect(calls).toEqual([]);

    // The workspace's budget drops below what it used: the room's copy is void before the PATCH answers...
    const voidsBefore = events.filter((e) => e.kind === "void" && e.room === room.id).length;
    expect((await setBudget(ws, 1)).status).toBe(200);
    expect(events.filter((e) => e.kind === "void" && e.room === room.id).length).toBeGreaterThan(voidsBefore);
    // ...so the next turn asks (the spy sees calls when there are some) and is refused.
    const third = await turn(socket, room.id, "third");
    expect(
      overseerCallsBeforeModel(ws, room.id, third).some(
        (e) => e.kind === "overseer" && e.method === "workspaceBudget" && e.room === room.id
      )
    ).toBe(true);
    expect(events.slice(third).some((e) => e.kind === "model" && e.room === room.id)).toBe(false);
    const stored = await waitFor(
      () => history(ws, room.id),
      (m) => m.length === messages + 2
    );
    expect(stored.at(-1).metadata).toMatchObject({ errorCode: "budget_exceeded:workspace" });
    socket.ws.close();
  });

  it("refuses in room B once room A took the workspace over its budget, though B held an under-budget copy", async () => {
    const ws = uniqueName();
    const a = await createRoom(ws, { name: "a" });
    const b = await createRoom(ws, { name: "b" });
    const socket = await connect(roomPath(ws, b.id));
    // What one turn costs with the offline model: the budget is set from it.
    await turn(socket, b.id, "how much is a turn?");
    const perTurn = (
      await waitFor(
        () => status(ws),
        (s) => s.tokensToday > 0
      )
    ).tokensToday;
    const budget = perTurn * 5;
    expect((await setBudget(ws, budget)).status).toBe(200);
    // B runs under budget and keeps the overseer's figure (well clear of the limit).
    await turn(socket, b.id, "still fine?");
    await settledReport(ws, b.id, 4);

    // A spends the rest: it is admitted until the workspace is over, then refused.
    let refusedInA: { errorCode?: string } | null = null;
    for (let i = 0; i < 12 && !refusedInA; i++) {
      const response = await api(`/api/workspaces/${ws}/rooms/${a.id}/messages`, {
        method: "POST",
        json: { text: `spend ${i} ${"and spend ".repeat(40)}` }
      });
      if (response.status === 429) refusedInA = await response.json<{ errorCode?: string }>();
      else expect(response.status).toBe(200);
    }
    expect(refusedInA?.errorCode).toBe("budget_exceeded:workspace");

    // B's next turn is refused too, with no model request.
    const refused = await turn(socket, b.id, "and now?");
    expect(events.slice(refused).some((e) => e.kind === "model" && e.room === b.id)).toBe(false);
    const messages = await waitFor(
      () => history(ws, b.id),
      (m) => m.length === 6
    );
    expect(messages.at(-1).metadata).toMatchObject({ errorCode: "budget_exceeded:workspace" });
    expect(messages.at(-1).metadata.error).toMatch(/workspace has used its daily budget/);
    expect((await status(ws)).tokensToday).toBeGreaterThanOrEqual(budget);
    socket.ws.close();
  });
});
