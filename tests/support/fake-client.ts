/**
 * The fake OpenAI provider as a test file sees it when the provider is
 * shared: it runs in Vitest's main process (tests/support/app-host.ts) and
 * answers every file that uses the same dev server, so a file reaches it over
 * HTTP and only ever touches what it can name. Every read takes a `match`
 * (a text the test put in its messages, a room's system prompt or model) and
 * every scenario a `key`: nothing here can change or hide another file's
 * requests. See tests/support/README.md.
 */
import type { FakeScenario, RecordedRequest } from "./fake-openai";

export interface FakeClient {
  /** e.g. "http://127.0.0.1:PORT": the fake's control routes (`/__fake/...`). */
  readonly origin: string;
  /** Recorded requests that match `match` (their model, or text in any message), oldest first. */
  requests(match: string): Promise<RecordedRequest[]>;
  /** The first request (already recorded or still to come) that matches `match` and `accept`. */
  waitForRequest(match: string, accept?: (r: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  /** Resolves once the app closed request `id` before it was answered; rejects if it was answered first. */
  waitForClientClose(id: number, timeoutMs?: number): Promise<void>;
  /** Answers every request that matches `key` with `scenario` from now on (null: stops). */
  script(key: string, scenario: FakeScenario | null): Promise<void>;
  /** Lets the streams held by `[[fake:…,gate=name]]` finish (use a uniqueName() gate). */
  openGate(name: string): Promise<void>;
}

async function call<T>(url: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  const response = await fetch(url, init);
  return { status: response.status, body: (await response.json()) as T };
}

export function fakeClient(origin: string): FakeClient {
  const query = (params: Record<string, string | number>) =>
    new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
  const requests = async (match: string, after = 0) => {
    const { status, body } = await call<RecordedRequest[]>(`${origin}/__fake/requests?${query({ match, after })}`);
    if (status !== 200) throw new Error(`fake requests: HTTP ${status}`);
    return body;
  };
  return {
    origin,
    requests: (match) => requests(match),
    async waitForRequest(match, accept = () => true, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      let after = 0;
      // The fake waits for the next match itself; `accept` is checked here.
      while (true) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        const { status, body } = await call<RecordedRequest & { error?: string }>(
          `${origin}/__fake/wait-request?${query({ match, after, timeoutMs: left })}`
        );
        if (status === 408) break;
        if (status !== 200) throw new Error(`fake wait-request: HTTP ${status}`);
        if (accept(body)) return body;
        after = body.id;
      }
      const seen = (await requests(match)).map((r) => `#${r.id} ${JSON.stringify(r.lastUserText)?.slice(0, 80)}`);
      throw new Error(
        `fake-openai: no request matching ${JSON.stringify(match)} and ${accept.toString().slice(0, 200)} within ${timeoutMs} ms; matching ones: ${seen.join(", ") || "none"}`
      );
    },
    async waitForClientClose(id, timeoutMs = 15_000) {
      const { status, body } = await call<{ error?: string }>(
        `${origin}/__fake/wait-close?${query({ id, timeoutMs })}`
      );
      if (status !== 200) throw new Error(body.error ?? `fake wait-close: HTTP ${status}`);
    },
    async script(key, scenario) {
      const { status } = await call(`${origin}/__fake/scenario`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key, scenario })
      });
      if (status !== 200) throw new Error(`fake script: HTTP ${status}`);
    },
    async openGate(name) {
      const { status } = await call(`${origin}/__fake/open-gate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ gate: name })
      });
      if (status !== 200) throw new Error(`fake open-gate: HTTP ${status}`);
    }
  };
}
