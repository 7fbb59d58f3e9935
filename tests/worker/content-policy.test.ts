/**
 * The Content-Security-Policy the Worker sends, read off real responses:
 * images only from our own origin (and data:/blob:, which make no request),
 * so a remote image in Markdown cannot be fetched by the page at all (the
 * UI opens it in a tab of its own on a click, RemoteImage.tsx); styles only
 * from our own stylesheets, no inline <style> or style="" (React's style
 * props set styles through the CSSOM, which CSP does not govern).
 */
import { describe, expect, it } from "vitest";
import { api, uniqueName } from "./helpers";

function directives(response: Response): Record<string, string[]> {
  const policy = response.headers.get("content-security-policy") ?? "";
  return Object.fromEntries(
    policy
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name, sources])
  );
}

describe("the content security policy", () => {
  it("lets images come only from our own origin, data: and blob:, and styles only from our stylesheets", async () => {
    const ws = uniqueName();
    for (const path of ["/api/session", `/api/workspaces/${ws}/rooms`, "/api/nowhere"]) {
      const policy = directives(await api(path));
      expect(policy["img-src"], path).toEqual(["'self'", "data:", "blob:"]);
      expect(policy["style-src"], path).toEqual(["'self'"]);
      expect(policy["script-src"], path).toEqual(["'self'"]);
    }
    // The first request of a file loads the app in workerd, which takes a while on a busy machine.
  }, 90_000);
});
