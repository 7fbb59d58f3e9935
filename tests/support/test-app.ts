/**
 * The app as integration and browser tests run it: the real Worker
 * (workerd, Durable Objects, facets) answering through a local fake OpenAI
 * provider, or through the built-in offline model; the production build
 * under `vite preview` when the layer made one (tests/support/app-build.ts),
 * else `vite dev`. `useTestApp` starts one per test file and stops it after,
 * and gives every test a fresh fake.
 */
import { afterAll, beforeAll, beforeEach, inject } from "vitest";
import { previewOf } from "./app-build";
import { type DevServer, startDevServer } from "./dev-server";
import { type FakeOpenAI, startFakeOpenAI } from "./fake-openai";

export interface TestAppOptions {
  /** `fake` (default): a local fake OpenAI server; `offline`: no provider, the built-in offline model. */
  provider?: "fake" | "offline";
  /** More Worker variables (they win over the provider's). */
  vars?: Record<string, string>;
  /** Two busy cores shared by several developers can take minutes to start Vite and workerd. */
  startTimeoutMs?: number;
  /** Serve this production build (tests/support/app-build.ts) instead of `vite dev`. */
  buildDir?: string;
  /**
   * The file restarts this server (`server.restart()`): it is then reached
   * through Vite's address, which a restart keeps. Any other preview server
   * is reached on workerd's own socket (DevServerOptions.direct), which
   * saves `vite preview` relaying every request and frame in Node.
   */
  restartsServer?: boolean;
}

export interface TestApp {
  server: DevServer;
  url: string;
  /** The fake provider; throws for an offline app. */
  readonly fake: FakeOpenAI;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 240_000;

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const fake = options.provider === "offline" ? null : await startFakeOpenAI();
  const providerVars: Record<string, string> = fake
    ? { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "test-key-not-secret", OPENAI_MODEL: "fake-model" }
    : {};
  const server = await startDevServer({
    vars: { ...providerVars, ...options.vars },
    startTimeoutMs: options.startTimeoutMs ?? START_TIMEOUT_MS,
    direct: !options.restartsServer,
    ...(options.buildDir ? previewOf(options.buildDir) : {})
  }).catch(async (error: unknown) => {
    await fake?.close();
    throw error;
  });
  return {
    server,
    url: server.url,
    get fake() {
      if (!fake) throw new Error("this test app runs the offline model: it has no fake provider");
      return fake;
    },
    async stop() {
      await server.stop();
      await fake?.close();
    }
  };
}

/**
 * One app for the whole test file: started in beforeAll, stopped in
 * afterAll, its fake provider reset before each test. Read its fields
 * inside tests (they throw before the app has started).
 */
export function useTestApp(options: TestAppOptions = {}): TestApp {
  let app: TestApp | undefined;
  const started = () => {
    if (!app) throw new Error("the test app is not started (use it inside tests and hooks)");
    return app;
  };
  beforeAll(
    async () => {
      app = await startTestApp({ buildDir: inject("appBuild"), ...options });
    },
    (options.startTimeoutMs ?? START_TIMEOUT_MS) + 60_000
  );
  afterAll(async () => {
    await app?.stop();
  });
  beforeEach(() => {
    if (options.provider !== "offline") started().fake.reset();
  });
  return {
    get server() {
      return started().server;
    },
    get url() {
      return started().url;
    },
    get fake() {
      return started().fake;
    },
    stop: () => started().stop()
  };
}
