/**
 * Names a person may not take, through the real Worker: the assistant's
 * names and their look-alikes, and a leading "@" that marks a persona
 * (shared/names.ts). Persona names are refused in tests/worker/personas.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { ErrorBody } from "@/shared/errors";
import { api, signIn } from "./helpers";

const RESERVED = ["Assistant", "\u0410ssistant", "ASSISTANT", "AI", "System", "@Ada", "\uff20Ada"];

describe("reserved member names", () => {
  it("are refused at sign-in with 400, naming the clash", async () => {
    for (const name of RESERVED) {
      const response = await api("/api/session", { method: "POST", json: { name } });
      expect(response.status, name).toBe(400);
      expect(response.headers.get("set-cookie"), name).toBeNull();
      const { error } = await response.json<ErrorBody>();
      expect(error.code, name).toBe("bad_request:body");
      expect(error.message, name).toMatch(name.includes("@") || name.includes("\uff20") ? /start with @/ : /reserved/);
    }
  });

  it("are refused on rename, and the old name stays", async () => {
    const ann = await signIn("Ann");
    for (const name of RESERVED) {
      const response = await api("/api/session", { method: "PATCH", headers: ann.headers, json: { name } });
      expect(response.status, name).toBe(400);
    }
    const me = await api("/api/session", { headers: ann.headers });
    expect((await me.json<{ user: { name: string } }>()).user.name).toBe("Ann");
  });

  it("leave names that only contain them alone", async () => {
    for (const name of ["Al", "Assistant Manager", "Ann @ home"]) {
      expect((await api("/api/session", { method: "POST", json: { name } })).status, name).toBe(200);
    }
  });
});
