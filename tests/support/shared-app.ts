/**
 * The layer's shared dev server, as one test file uses it: `useSharedApp()`
 * asks the app host (tests/support/app-host.ts, the layer's global setup)
 * for the server in beforeAll and lets go of it in afterAll. The file works
 * in a workspace of its own (`app.workspace`, `app.api`) and reaches the
 * shared fake provider through `app.fake`, which only reads and scripts what
 * the file names. The pattern, and what must not be shared, is in
 * tests/support/README.md.
 */
import { afterAll, beforeAll, inject } from "vitest";
import type { SharedAppAddress } from "./app-host";
import { type FakeClient, fakeClient } from "./fake-client";
import { type RestClient, restClient } from "./rest-client";
import type { SharedAppOptions } from "./shared-app-options";
import { uniqueName } from "./wait";

export type { SharedAppAddress, SharedAppOptions };

export interface SharedApp {
  /** The dev server's origin, e.g. "http://127.0.0.1:PORT". */
  readonly url: string;
  /** This file's own workspace: every room, socket and search of the file goes there. */
  readonly workspace: string;
  /** The rooms routes and socket URLs of `workspace`. */
  readonly api: RestClient;
  /** The shared fake provider; throws for an app on the offline model. */
  readonly fake: FakeClient;
}

/** A first boot on two busy cores can take minutes (Vite, workerd, dependency optimisation). */
const ACQUIRE_TIMEOUT_MS = 300_000;

async function hostCall(path: string, options: SharedAppOptions): Promise<Response> {
  return fetch(`${inject("appHost")}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(options),
    signal: AbortSignal.timeout(ACQUIRE_TIMEOUT_MS)
  });
}

/**
 * Takes the shared server these options name, booting it if no file has:
 * with `perWorker`, the one of this Vitest worker (files on it run one after
 * another). Give it back with {@link releaseSharedApp}.
 */
export async function acquireSharedApp(options: SharedAppOptions): Promise<SharedAppAddress> {
  const response = await hostCall("/acquire", withWorker(options));
  const body = (await response.json()) as SharedAppAddress & { error?: string };
  if (response.status !== 200) throw new Error(`the shared dev server did not start: ${body.error}`);
  return body;
}

export async function releaseSharedApp(options: SharedAppOptions): Promise<void> {
  await hostCall("/release", withWorker(options));
}

function withWorker(options: SharedAppOptions): SharedAppOptions {
  return options.perWorker ? { ...options, worker: process.env.VITEST_POOL_ID ?? "1" } : options;
}

/** The timeout a beforeAll that acquires a shared app needs. */
export const ACQUIRE_HOOK_TIMEOUT_MS = ACQUIRE_TIMEOUT_MS + 10_000;

export function useSharedApp(options: SharedAppOptions = {}): SharedApp {
  let address: SharedAppAddress | undefined;
  const workspace = uniqueName("ws");
  const started = () => {
    if (!address) throw new Error("the shared app is not started (use it inside tests and hooks)");
    return address;
  };
  beforeAll(async () => {
    address = await acquireSharedApp(options);
  }, ACQUIRE_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    if (address) await releaseSharedApp(options);
  });
  return {
    get url() {
      return started().url;
    },
    workspace,
    get api() {
      return restClient(started().url, { workspace });
    },
    get fake() {
      const { fakeOrigin } = started();
      if (!fakeOrigin) throw new Error("this shared app runs the offline model: it has no fake provider");
      return fakeClient(fakeOrigin);
    }
  };
}
