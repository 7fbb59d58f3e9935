/**
 * Idempotent sends and who-stopped-what, kept out of the agent class.
 *
 * An outbox resends whatever it has not seen acknowledged, so the room must
 * store each client message id at most once. The durable check is the
 * transcript itself (the id is the stored message's id, so it survives a
 * restart with the message, atomically); `RecentIds` closes the short window
 * between admitting a send and the framework persisting it, in which a
 * second copy of the same frame could otherwise pass the durable check.
 */
import { CLIENT_MESSAGE_ID_PATTERN } from "@/shared/outbox";

export type ClientSendRead =
  | { kind: "plain" }
  | { kind: "outbox"; clientMessageId: string }
  | { kind: "invalid"; message: string };

/**
 * Reads `clientMessageId` from a chat request body. A send that carries one is
 * always a new message (never an edit): its last message must have that id.
 */
export function readClientSend(rawBody: unknown): ClientSendRead {
  if (typeof rawBody !== "string" || !rawBody.includes('"clientMessageId"')) return { kind: "plain" };
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return { kind: "plain" }; // the chat-request guard reports bad JSON
  }
  if (typeof body !== "object" || body === null) return { kind: "plain" };
  const { clientMessageId, messages, trigger } = body as Record<string, unknown>;
  if (clientMessageId === undefined) return { kind: "plain" };
  if (typeof clientMessageId !== "string" || !CLIENT_MESSAGE_ID_PATTERN.test(clientMessageId)) {
    return { kind: "invalid", message: "clientMessageId must be 8 to 64 letters, digits, - or _." };
  }
  if (trigger !== undefined && trigger !== "submit-message") {
    return { kind: "invalid", message: "A send with a clientMessageId must be a new message." };
  }
  const last = Array.isArray(messages) ? (messages.at(-1) as { id?: unknown } | undefined) : undefined;
  if (!last || last.id !== clientMessageId) {
    return { kind: "invalid", message: "The message sent must have the clientMessageId as its id." };
  }
  return { kind: "outbox", clientMessageId };
}

/** A bounded set of ids admitted recently (insertion order, oldest evicted). */
export class RecentIds {
  #ids = new Map<string, number>();
  constructor(
    private readonly capacity = 1_000,
    private readonly ttlMs = 10 * 60_000
  ) {}

  has(id: string, now: number): boolean {
    const at = this.#ids.get(id);
    return at !== undefined && now - at < this.ttlMs;
  }

  add(id: string, now: number): void {
    this.#ids.delete(id);
    this.#ids.set(id, now);
    while (this.#ids.size > this.capacity) this.#ids.delete(this.#ids.keys().next().value as string);
  }
}

/** Who asked to stop which turn (request id → who), bounded like RecentIds. */
export class StopRequests<Who = string> {
  #byRequest = new Map<string, Who>();
  constructor(private readonly capacity = 200) {}

  record(requestId: string, who: Who): void {
    // The first stop names the turn's stopper; later ones change nothing.
    if (this.#byRequest.has(requestId)) return;
    this.#byRequest.set(requestId, who);
    while (this.#byRequest.size > this.capacity) this.#byRequest.delete(this.#byRequest.keys().next().value as string);
  }

  /** Who stopped the turn, leaving the record for the turn's own end. */
  peek(requestId: string): Who | undefined {
    return this.#byRequest.get(requestId);
  }

  take(requestId: string): Who | undefined {
    const who = this.#byRequest.get(requestId);
    this.#byRequest.delete(requestId);
    return who;
  }
}
