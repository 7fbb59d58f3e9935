/**
 * Where `npm run bench` writes its results: every full run to a file of its
 * own in bench/results/, a --quick run never there (so the test suite's quick
 * run cannot dirty the tree or replace a quoted run), --out wherever asked.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resultsFileName, resultsPath, runMode } from "../../bench/lib/results-path";

const dirs = { root: "/repo", tmp: "/scratch" };
const full = {
  quick: false,
  target: "dev",
  localTracing: false,
  startedAt: new Date("2026-12-01T12:06:23.000Z")
};

describe("bench results path", () => {
  it("puts a full run in bench/results/, named by mode and time", () => {
    expect(resultsPath(full, dirs)).toBe(path.join("/repo", "bench", "results", "full-2026-12-01T12-06-23-000Z.json"));
  });

  it("names the sections, the target and local tracing, so different runs never share a file", () => {
    expect(resultsFileName({ ...full, target: "preview", only: ["relay", "history"], localTracing: true })).toBe(
      "full-preview-relay+history-local-tracing-2026-12-01T12-06-23-000Z.json"
    );
    const later = { ...full, startedAt: new Date("2026-12-01T12:06:24.000Z") };
    expect(resultsPath(later, dirs)).not.toBe(resultsPath(full, dirs));
  });

  it("never writes a --quick run into the tree", () => {
    const quick = resultsPath({ ...full, quick: true }, dirs);
    expect(quick).toBe(path.join("/scratch", "rooms-bench", "quick-2026-12-01T12-06-23-000Z.json"));
    expect(quick.startsWith(path.join("/repo", "bench"))).toBe(false);
    expect(runMode({ quick: true, target: "preview" })).toBe("quick-preview");
  });

  it("writes where --out says, whatever the run", () => {
    expect(resultsPath({ ...full, quick: true }, dirs, "out/a.json")).toBe(path.resolve("out/a.json"));
  });
});
