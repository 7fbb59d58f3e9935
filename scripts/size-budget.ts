/**
 * The size budget `npm run check` enforces on src/: at most 500 lines per
 * file and 100 lines per function, so every file reads in one sitting and
 * every function on a screen or two. Functions are measured on the
 * TypeScript compiler's own parse: every function, method, accessor,
 * constructor and arrow function, from its first token to its last (a
 * nested function counts in its parent too).
 *
 * OVER_BUDGET lists what is still over, each with why and the size it may
 * not grow past. The list only shrinks: an entry fails the check once its
 * file or function is back within budget (delete the entry then), and when
 * it grows past its recorded size (split it instead). A new entry is a
 * decision for review, with a reason a reader would accept.
 *
 *   node --experimental-strip-types scripts/size-budget.ts
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

export const MAX_FILE_LINES = 500;
export const MAX_FUNCTION_LINES = 100;

export interface OverBudget {
  /** A file (`src/…`), or a function in it (`src/…#name`, as the report names it). */
  what: string;
  /** Its size when it was listed: it may shrink, never grow. */
  lines: number;
  why: string;
}

const OVER_BUDGET: OverBudget[] = [
  {
    what: "src/server/agents/persona-turns.ts#runPersonaAnswer",
    lines: 163,
    why: "one persona answer's whole life (stream, relay, retries, deadline, outcome) over shared state: split it into a class of steps"
  },
  {
    what: "src/server/domain/messages/chat-request-guard.ts#guardChatRequest",
    lines: 142,
    why: "the rebuild of a client's chat request from the room's transcript; the security review (issue 21) is changing it this round: split it with that change"
  },
  {
    what: "src/client/components/Composer.tsx#Composer",
    lines: 111,
    why: "the composer grew file attachments this round (files UI); its owner splits the attachment tray out next"
  },
  {
    what: "src/client/components/memory/AnswerContext.tsx#ContextParts",
    lines: 107,
    why: "the new What the AI saw view (memory UI), one part per kind; its owner splits the kinds out next"
  },
  {
    what: "src/client/components/MessageItem.tsx#MessageItem",
    lines: 105,
    why: "one message's row grew its follow and accessibility work this round (client); its owner splits the actions out next"
  }
];

/** A readable name for a function: its own, or the name it is bound to. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const name = node.name;
  if (name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name))) return name.text;
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name
  ) {
    return parent.name.getText(source);
  }
  return `(anonymous, line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1})`;
}

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** Every file and function over budget, by `what`, with its lines. */
export function measure(files: ReadonlyArray<{ path: string; text: string }>): Map<string, number> {
  const over = new Map<string, number>();
  for (const { path, text } of files) {
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
    const fileLines = text.length === 0 ? 0 : lineOf(text.length) + (text.endsWith("\n") ? 0 : 1);
    if (fileLines > MAX_FILE_LINES) over.set(path, fileLines);
    const visit = (node: ts.Node) => {
      if (isFunction(node) && node.body) {
        const lines = lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
        if (lines > MAX_FUNCTION_LINES) over.set(`${path}#${nameOf(node, source)}`, lines);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return over;
}

/** What breaks the budget: sizes over it that are not listed, listed ones that grew, entries no longer needed. */
export function problems(over: ReadonlyMap<string, number>, listed: readonly OverBudget[]): string[] {
  const found: string[] = [];
  const entries = new Map(listed.map((entry) => [entry.what, entry]));
  for (const [what, lines] of over) {
    const entry = entries.get(what);
    const limit = what.includes("#") ? MAX_FUNCTION_LINES : MAX_FILE_LINES;
    if (!entry) found.push(`${what}: ${lines} lines, over the budget of ${limit}: split it`);
    else if (lines > entry.lines) found.push(`${what}: ${lines} lines, grew past its listed ${entry.lines}: split it`);
  }
  for (const entry of listed) {
    if (!over.has(entry.what)) found.push(`${entry.what}: within budget now: delete its OVER_BUDGET entry`);
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The budget over the tree's src/: the problems found, none when it holds. */
export function checkTree(root: string): string[] {
  const files = sourceFiles(join(root, "src")).map((file) => ({
    path: relative(root, file),
    text: readFileSync(file, "utf8")
  }));
  return problems(measure(files), OVER_BUDGET);
}

if (import.meta.main) {
  const found = checkTree(join(import.meta.dirname, ".."));
  if (found.length > 0) {
    console.error(`Size budget (scripts/size-budget.ts): ${found.length} problem(s)`);
    for (const problem of found) console.error(`  ${problem}`);
    process.exit(1);
  }
}
