import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  CONTENT_SECURITY_POLICY,
  DEV_SECURITY_HEADERS,
  SECURITY_HEADERS
} from "../../src/server/http/security-headers";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("security headers", () => {
  it("are the same in public/_headers (the built client) as in the Worker", () => {
    const lines = readFileSync(path.join(ROOT, "public/_headers"), "utf8")
      .split("\n")
      .filter((line) => line.startsWith("  "));
    const fromFile = Object.fromEntries(
      lines.map((line) => {
        const at = line.indexOf(":");
        return [line.slice(0, at).trim(), line.slice(at + 1).trim()];
      })
    );
    expect(fromFile).toEqual(SECURITY_HEADERS);
  });

  it("allow scripts and connections only from our own origin, and no framing", () => {
    const directives = Object.fromEntries(
      CONTENT_SECURITY_POLICY.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)])
    );
    expect(directives["script-src"]).toEqual(["'self'"]);
    expect(directives["connect-src"]).toEqual(["'self'"]);
    expect(directives["frame-ancestors"]).toEqual(["'none'"]);
    expect(directives["default-src"]).toEqual(["'self'"]);
  });

  it("allow no remote image and no inline style in the built client; the dev server's inline styles stay dev-only", () => {
    const parse = (policy: string) =>
      Object.fromEntries(policy.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));
    const built = parse(CONTENT_SECURITY_POLICY);
    expect(built["img-src"]).toEqual(["'self'", "data:", "blob:"]);
    expect(built["style-src"]).toEqual(["'self'"]);
    const dev = parse(DEV_SECURITY_HEADERS["Content-Security-Policy"]);
    expect(dev["style-src"]).toEqual(["'self'", "'unsafe-inline'"]);
    expect(dev["img-src"]).toEqual(built["img-src"]);
  });
});
