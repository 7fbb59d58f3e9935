// Tells workers-types what our main module exports and which env bindings
// exist, so `env` and `ctx.exports` are typed (what `wrangler types` would
// generate).
import type { Env as RoomsEnv } from "./env";

declare global {
  namespace Cloudflare {
    interface Env extends RoomsEnv {}
    interface GlobalProps {
      mainModule: typeof import("./index");
      durableNamespaces: "OverseerAgent" | "AuthKeeper" | "LimitKeeper";
    }
  }
}
