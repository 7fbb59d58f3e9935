import { describe, expect, it } from "vitest";
import { SYNTHESIS_SYSTEM_PROMPT } from "@/server/domain/personas/panel";
import { chatRequest, isDone, messageText } from "../support/chat-protocol";
import { restClient, signIn } from "../support/rest-client";
import { openSocket, type Socket } from "../support/socket";
import { useTestApp } from "../support/test-app";
import { uniqueName } from "../support/wait";

// Panels over the real dev server: fan-out to every persona facet, fan-in
// by the room's assistant, with one panellist failing and one timing out.
const PERSONA_TIMEOUT_MS = 6_000;

const app = useTestApp({
  vars: { PERSONA_TIMEOUT_MS: String(PERSONA_TIMEOUT_MS) }
});

async function panelRoom(prompts: Record<string, string>) {
  const api = restClient(app.url, { workspace: uniqueName("ws") });
  const room = await api.createRoom({ systemPrompt: "Room prompt." });
  for (const [name, systemPrompt] of Object.entries(prompts)) {
    const response = await api.call(`/${room.id}/personas`, { method: "POST", json: { name, systemPrompt } });
    expect(response.status).toBe(201);
  }
  return { api, room };
}

describe("panels", () => {
  it("ask every persona at once, then the assistant names who said what and who is missing", async () => {
    const { api, room } = await panelRoom({
      Ada: "Optimist. [[fake:text=Ship it.]]",
      Bob: "Broken. [[fake:status=401]]",
      Cy: "Stuck. [[fake:hang]]"
    });
    const started = Date.now();
    const sent = await api.send(room.id, "/panel Should we ship on Friday?");
    expect(sent.status).toBe(200);
    // The hanging panellist held the synthesis back only until its timeout.
    expect(Date.now() - started).toBeLessThan(PERSONA_TIMEOUT_MS + 20_000);

    const panellists = app.fake.requests.filter((r) => r.systemText?.includes("This is a panel"));
    expect(panellists).toHaveLength(3);
    expect(panellists.every((r) => r.systemText?.includes("The panel question: Should we ship on Friday?"))).toBe(true);
    const cy = panellists.find((r) => r.systemText?.includes("Stuck."));
    expect(cy?.closedByClient).toBe(true);

    const synthesis = app.fake.requests.find((r) => r.systemText?.includes(SYNTHESIS_SYSTEM_PROMPT));
    expect(synthesis).toBeDefined();
    expect(synthesis!.systemText).toContain("Room prompt.");
    expect(synthesis!.lastUserText).toContain("@Ada said:\nShip it.");
    expect(synthesis!.lastUserText).toContain("Missing from the panel: @Bob (failed: The model provider refused");
    expect(synthesis!.lastUserText).toContain("@Cy (failed: @Cy took longer than 6 s and was stopped.)");

    const { messages } = await api.messages(room.id);
    expect(messages.map((m) => [m.role, m.metadata.persona?.name, m.metadata.panel])).toEqual([
      ["user", undefined, undefined],
      ["assistant", "Ada", "answer"],
      ["assistant", "Bob", "answer"],
      ["assistant", "Cy", "answer"],
      ["assistant", undefined, "synthesis"]
    ]);
    expect(messageText(messages[1])).toBe("Ship it.");
    expect(messages[2].metadata.error).toBeTruthy();
    expect(messages[3].metadata.error).toContain("took longer");
    expect(messageText(messages[4])).toContain("@Ada said: Ship it.");
    expect(messages.slice(1).every((m) => m.metadata.answers === messages[0].id)).toBe(true);
  });

  it("stop mid-panel aborts every upstream request and writes no synthesis", async () => {
    const { api, room } = await panelRoom({ Ada: "A.", Bob: "B.", Cy: "C." });
    const socket = await openSocket(api.roomSocketUrl(room.id));
    const request = chatRequest("/panel [[fake:hang]] endless question");
    socket.send(request.frame);
    await app.fake.waitForRequest(
      () => app.fake.requests.filter((r) => r.lastUserText?.includes("endless question")).length === 3,
      20_000
    );
    socket.send({ type: "cf_agent_chat_request_cancel", id: request.id });
    await socket.next(isDone(request.id), 20_000);

    const calls = app.fake.requests.filter((r) => r.lastUserText?.includes("endless question"));
    expect(calls).toHaveLength(3);
    // Every upstream request was aborted by us, not finished by the provider.
    await Promise.all(calls.map((call) => app.fake.waitForClientClose(call.id, 10_000)));
    expect(app.fake.requests.some((r) => r.systemText?.includes(SYNTHESIS_SYSTEM_PROMPT))).toBe(false);
    const { messages } = await api.messages(room.id);
    const answers = messages.filter((m) => m.role === "assistant");
    expect(answers).toHaveLength(3);
    expect(answers.every((m) => m.metadata.stopped === true)).toBe(true);
    socket.close();
  });

  it("everyone in the room sees a panel turn live, and anyone can stop it", async () => {
    const { api, room } = await panelRoom({ Ada: "Slow. [[fake:chunks=2000,slow=50]]", Cy: "Stuck. [[fake:hang]]" });
    const sockets: Socket[] = [];
    try {
      const [alice, bob, carol] = await Promise.all(["Alice", "Bob", "Carol"].map((n) => signIn(app.url, n)));
      const aliceSocket = await openSocket(api.roomSocketUrl(room.id), alice.headers);
      const bobSocket = await openSocket(api.roomSocketUrl(room.id), bob.headers);
      sockets.push(aliceSocket, bobSocket);
      const request = chatRequest("/panel Who watches the watchers?");
      aliceSocket.send(request.frame);

      // Bob, who sent nothing, learns which turn runs and watches an answer grow.
      const isTurn = (running: boolean) => (f: any) =>
        f?.type === "rooms_turn" && f.requestId === request.id && f.running === running;
      const started = await bobSocket.next(isTurn(true), 20_000);
      expect(started.kind).toBe("panel");
      await bobSocket.next(
        (f) =>
          f?.type === "cf_agent_message_updated" &&
          f.message?.metadata?.persona?.name === "Ada" &&
          messageText(f.message).includes("t3 "),
        30_000
      );
      // Carol joins mid-turn and is told at once.
      const carolSocket = await openSocket(api.roomSocketUrl(room.id), carol.headers);
      sockets.push(carolSocket);
      await carolSocket.next(isTurn(true), 10_000);
      await app.fake.waitForRequest((r) => r.systemText?.includes("Stuck.") ?? false, 20_000);

      bobSocket.send({ type: "cf_agent_chat_request_cancel", id: request.id });
      await Promise.all([
        bobSocket.next(isTurn(false), 20_000),
        carolSocket.next(isTurn(false), 20_000),
        aliceSocket.next(isDone(request.id), 20_000)
      ]);
      const calls = app.fake.requests.filter((r) => r.systemText?.includes("This is a panel"));
      expect(calls).toHaveLength(2);
      await Promise.all(calls.map((call) => app.fake.waitForClientClose(call.id, 10_000)));
      expect(app.fake.requests.some((r) => r.systemText?.includes(SYNTHESIS_SYSTEM_PROMPT))).toBe(false);

      const { messages } = await api.messages(room.id);
      const answers = messages.filter((m) => m.role === "assistant");
      expect(answers.map((m) => m.metadata.persona?.name).sort()).toEqual(["Ada", "Cy"]);
      for (const answer of answers) {
        expect(answer.metadata.stopped).toBe(true);
        expect(answer.metadata.stoppedBy?.name).toBe("Bob");
      }
      // Ada's partial answer is kept.
      expect(messageText(answers.find((m) => m.metadata.persona?.name === "Ada"))).toContain("t3 ");
    } finally {
      for (const socket of sockets) socket.close();
      await Promise.all(sockets.map((socket) => socket.closed));
    }
  });
});
