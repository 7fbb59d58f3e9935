import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { APICallError } from "ai";
import fc from "fast-check";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { overBudget } from "@/server/domain/budgets/token-budgets";
import { facetUnreachable, readStructuredError } from "@/server/domain/facets/facet-errors";
import { modelErrorCode } from "@/server/domain/turns/model-errors";
import { AnswerErrorCode, isAnswerErrorCode, WireError } from "@/shared/errors";
import { OverseerFrameSchema } from "@/shared/protocol";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** `<kind>:<subject>`: the shape of every error code. */
const CODE_SHAPE = /^[a-z_]+:[a-z0-9_]+$/;
/**
 * Strings of that shape that are not error codes, each with why: the rate
 * limiter's keys for a caller it cannot name (domain/access/caller.ts).
 */
const NOT_CODES = new Set(["id:unknown", "ip:unknown"]);

function serverFiles(dir = join(ROOT, "src/server")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return serverFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/**
 * Every string literal of a module shaped like an error code, and the fixed
 * heads of template literals that build one (`upstream:http_${status}`, a code
 * shape before the first substitution);
 * module specifiers (`cloudflare:workers`) are not codes.
 */
function codeLiterals(file: string): { codes: string[]; templates: string[] } {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const codes: string[] = [];
  const templates: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || ts.isImportTypeNode(node)) return;
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && CODE_SHAPE.test(node.text)) {
      codes.push(node.text);
    }
    if (ts.isTemplateExpression(node) && CODE_SHAPE.test(node.head.text)) templates.push(node.head.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { codes, templates };
}

describe("one error model: every code is declared once, in src/shared/errors.ts", () => {
  const files = serverFiles();

  it("declares every code a server module writes", () => {
    const undeclared: string[] = [];
    let seen = 0;
    for (const file of files) {
      for (const code of codeLiterals(file).codes) {
        if (NOT_CODES.has(code)) continue;
        seen++;
        if (!isAnswerErrorCode(code)) undeclared.push(`${relative(ROOT, file)}: ${code}`);
      }
    }
    expect(seen).toBeGreaterThan(50);
    expect(undeclared).toEqual([]);
  });

  it("declares the codes server modules build from a provider's status", () => {
    const templates = files.flatMap((file) => codeLiterals(file).templates);
    expect(templates).toContain("upstream:http_");
    for (const head of templates) expect(isAnswerErrorCode(`${head}503`), head).toBe(true);
  });

  it("would catch an undeclared code (the scan reads literals, not imports)", () => {
    expect(isAnswerErrorCode("upstream:facets")).toBe(false);
    expect(isAnswerErrorCode("task:limits")).toBe(false);
    expect(isAnswerErrorCode("upstream:http_abc")).toBe(false);
    expect(isAnswerErrorCode("cloudflare:workers")).toBe(false);
  });

  it("tests codes exactly as the shared schema parses them", () => {
    const declared = ["upstream:timeout", "bad_request:body", "internal:unexpected", "aborted", "upstream:http_429"];
    const candidates: unknown[] = [
      ...declared,
      undefined,
      null,
      429,
      {},
      ["aborted"],
      "",
      "aborted ",
      "upstream:http_600",
      "upstream:http_4299",
      "Upstream:timeout"
    ];
    for (const value of candidates)
      expect(isAnswerErrorCode(value), String(value)).toBe(AnswerErrorCode.safeParse(value).success);
    for (const code of declared) expect(isAnswerErrorCode(code)).toBe(true);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.constantFrom(...declared).map((c) => `${c}x`),
          fc.anything()
        ),
        (value) => {
          expect(isAnswerErrorCode(value)).toBe(AnswerErrorCode.safeParse(value).success);
        }
      )
    );
  });

  it("gives every provider failure a declared code", () => {
    const apiError = (statusCode: number) =>
      new APICallError({ message: "x", url: "http://provider.test", requestBodyValues: {}, statusCode });
    const failures: unknown[] = [
      apiError(400),
      apiError(401),
      apiError(429),
      apiError(503),
      Object.assign(new Error("x"), { name: "AI_RetryError", lastError: apiError(502), errors: [1, 2] }),
      Object.assign(new Error("x"), { code: "rooms_connection_lost" }),
      Object.assign(new Error("x"), { code: "rooms_idle_timeout" }),
      Object.assign(new Error("x"), { name: "AbortError" }),
      Object.assign(new Error("x"), { name: "TimeoutError" }),
      Object.assign(new Error("x"), { name: "AI_JSONParseError" }),
      Object.assign(new Error("x"), { statusCode: 999 }),
      new Error("anything else"),
      "a string"
    ];
    for (const failure of failures) expect(AnswerErrorCode.parse(modelErrorCode(failure))).toBeTruthy();
    expect(modelErrorCode(Object.assign(new Error("x"), { statusCode: 999 }))).toBe("upstream:model");
  });

  it("parses the room list's error frames with the shared schema: declared codes only", () => {
    const frame = { type: "error", code: "bad_request:body", message: "This socket only receives the room list." };
    expect(OverseerFrameSchema.safeParse(frame).success).toBe(true);
    expect(OverseerFrameSchema.safeParse({ ...frame, code: "bad_request:socket" }).success).toBe(false);
  });

  it("gives facet and budget failures declared codes, and reads back only declared ones", () => {
    expect(isAnswerErrorCode(facetUnreachable("A persona").code)).toBe(true);
    const room = overBudget({ room: { budget: 1, used: 1 }, workspace: null });
    const workspace = overBudget({ room: { budget: 0, used: 0 }, workspace: { budget: 1, used: 2 } });
    expect([room?.code, workspace?.code]).toEqual(["budget_exceeded:room", "budget_exceeded:workspace"]);
    // A refused turn's code is also a wire code: REST answers it as an ErrorBody.
    expect(WireError.safeParse({ code: room?.code, message: "m" }).success).toBe(true);
    expect(readStructuredError({ code: "task:limit", message: "m" })?.code).toBe("task:limit");
    expect(readStructuredError({ code: "task:unknown", message: "m" })).toBeNull();
  });
});
