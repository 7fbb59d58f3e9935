/**
 * Limits per identity across workspaces (agents/limit-keeper.ts): an
 * identity over its allowance in one workspace is over it in every other,
 * right away, while another identity from the same address is not; and each
 * kind (REST and socket sends, new rooms, uploads, searches) asks the same
 * keeper. Default RATE_LIMIT_SCALE (1), as the other limit tests.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { LimitKind } from "@/server/domain/access/identity-limits";
import { RATE_LIMITS } from "@/shared/constants";
import type { ErrorBody } from "@/shared/errors";
import { fileForm, PNG_BYTES } from "../support/files";
import { waitFor } from "../support/wait";
import {
  api,
  BASE,
  chatRequest,
  connect,
  fetchWorker,
  history,
  isDone,
  roomPath,
  type SignedIn,
  signIn,
  uniqueName
} from "./helpers";

function newRoom(ws: string, who: SignedIn, name = "Room") {
  return api(`/api/workspaces/${ws}/rooms`, { method: "POST", json: { name }, headers: who.headers });
}

async function expectRateLimited(response: Response) {
  expect(response.status).toBe(429);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  expect((await response.json<ErrorBody>()).error.code).toBe("rate_limited:requests");
}

/** The keeper of a signed-in person's limits (their identity key, domain/access/caller.ts). */
const keeperOf = (who: SignedIn) => env.LimitKeeper.get(env.LimitKeeper.idFromName(`id:${who.user.id}`));

/**
 * Spends a kind's bucket, then its next token the moment it comes: the
 * bucket is then as empty as it gets, a whole refill period from another.
 */
async function spend(who: SignedIn, kind: LimitKind) {
  const keeper = keeperOf(who);
  let admission = await keeper.take(kind);
  while (admission.ok) admission = await keeper.take(kind);
  // Asked every 20 ms: the token is taken within moments of its coming back.
  await waitFor(
    async () => (await keeper.take(kind)).ok,
    (taken) => taken,
    admission.retryAfterMs + 15_000,
    `a ${kind} token back`,
    20
  );
}

/**
 * Spends a kind's bucket, then makes `request` until it is refused (a few
 * tries): on a loaded machine a request can take longer than a refill
 * period to reach the keeper, and then rightly gets the token that came
 * back meanwhile. A request that used another bucket is never refused.
 */
async function refusedAfterSpending<T>(
  who: SignedIn,
  kind: LimitKind,
  request: () => Promise<T>,
  refused: (result: T) => boolean
): Promise<T> {
  for (let attempt = 0; attempt < 4; attempt++) {
    await spend(who, kind);
    const result = await request();
    if (refused(result)) return result;
  }
  throw new Error(`a ${kind} request was never refused after its bucket was spent`);
}

const limitedStatus = (response: Response) => response.status === 429;

describe("limits per identity across workspaces", () => {
  // Generous: a room a second or so on a loaded machine, and some thirty of them.
  it("refuses in a second workspace, at once, an identity that used up its new rooms in the first", {
    timeout: 180_000
  }, async () => {
    const [w1, w2] = [uniqueName(), uniqueName()];
    const [ann, ben] = [await signIn("Ann"), await signIn("Ben")];
    // Both workspaces awake before Ann starts, so nothing slow sits between her refusals.
    expect((await api(`/api/workspaces/${w2}/rooms`, { headers: ben.headers })).status).toBe(200);
    let limited: Response | undefined;
    let created = 0;
    // Until the first refusal: on a slow machine the bucket refills while the burst is spent.
    for (let i = 0; i < RATE_LIMITS.restRoomCreate.burst * 3 && !limited; i++) {
      const response = await newRoom(w1, ann, `r${i}`);
      if (response.status === 429) limited = response;
      else if (response.status === 201) created++;
      else throw new Error(`create failed ${response.status}: ${await response.text()}`);
    }
    expect(created).toBeGreaterThanOrEqual(RATE_LIMITS.restRoomCreate.burst);
    await expectRateLimited(limited!);
    // A workspace Ann has not created anything in, so its own limits are whole: refused all the same.
    // Her allowance gives back a room every two seconds, and on a loaded machine one may come back
    // between her last refusal and this request; so she tries again from empty, a few times. Were
    // limits per workspace, every one of these rooms would be made.
    let elsewhere: Response | undefined;
    for (let attempt = 0; attempt < 5 && elsewhere?.status !== 429; attempt++) {
      await waitFor(
        () => newRoom(w1, ann, "drain"),
        (response) => response.status === 429,
        60_000,
        "Ann's new rooms used up again"
      );
      elsewhere = await newRoom(w2, ann, "elsewhere");
    }
    await expectRateLimited(elsewhere!);
    // Ben, from the same address, is not held up there or in the first workspace.
    expect((await newRoom(w2, ben, "Ben's")).status).toBe(201);
    expect((await newRoom(w1, ben, "Ben's too")).status).toBe(201);
  });

  it("asks the same keeper for sends over REST and sockets, searches and uploads", { timeout: 60_000 }, async () => {
    const ws = uniqueName();
    const [ann, ben] = [await signIn("Ann"), await signIn("Ben")];
    const room = (await (await newRoom(ws, ann)).json<{ id: string }>()).id;
    const socket = await connect(roomPath(ws, room), ann.headers);
    await socket.next((f) => f?.type === "cf_agent_state");

    const sendOverRest = () =>
      api(`/api/workspaces/${ws}/rooms/${room}/messages`, {
        method: "POST",
        json: { text: "over REST" },
        headers: ann.headers
      });
    await expectRateLimited(await refusedAfterSpending(ann, "send", sendOverRest, limitedStatus));

    const sendOverSocket = async () => {
      const { id, message, frame } = chatRequest("over the socket");
      const from = socket.frames.length;
      socket.send(frame);
      // Accepted (a token had come back), it is answered; refused, it ends in an error and the room says why.
      if (!(await socket.next(isDone(id))).error) return { message, refused: null };
      const refused = await socket.next((f) => f?.type === "rooms_error" && socket.frames.indexOf(f) >= from);
      return { message, refused };
    };
    const { message, refused } = await refusedAfterSpending(
      ann,
      "send",
      sendOverSocket,
      (sent) => sent.refused !== null
    );
    expect(refused.code).toBe("rate_limited:requests");
    expect(refused.message).toMatch(/Too many messages/);
    // The refused message is stored nowhere.
    expect((await history(ws, room)).some((m) => m.id === message.id)).toBe(false);

    const search = () => api(`/api/workspaces/${ws}/search?q=tapir`, { headers: ann.headers });
    await expectRateLimited(await refusedAfterSpending(ann, "search", search, limitedStatus));

    const upload = (who: SignedIn) =>
      fetchWorker(`${BASE}/api/workspaces/${ws}/rooms/${room}/files`, {
        method: "POST",
        body: fileForm(PNG_BYTES, "a.png"),
        headers: who.headers
      });
    await expectRateLimited(await refusedAfterSpending(ann, "upload", () => upload(ann), limitedStatus));

    const create = () => newRoom(ws, ann, "another");
    await expectRateLimited(await refusedAfterSpending(ann, "create", create, limitedStatus));

    // Ben's allowance is his own.
    expect((await upload(ben)).status).toBe(201);
    expect((await api(`/api/workspaces/${ws}/search?q=tapir`, { headers: ben.headers })).status).toBe(200);
    socket.ws.close();
  });
});
