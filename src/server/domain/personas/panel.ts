/**
 * Panels: one question to every persona at once (fan-out), then the room's
 * assistant writes a synthesis that names who said what (fan-in). This
 * module holds the words: what each panellist is told, and the synthesis
 * request built from whatever came back, so a failed, timed-out or stopped
 * panellist is named as missing rather than silently left out. Pure.
 */

/** Characters of each panellist's answer the synthesis request quotes. */
const MAX_PANEL_ANSWER_CHARS = 4_000;

export interface PanelResult {
  name: string;
  status: "completed" | "error" | "aborted";
  text: string;
  error?: string;
}

export function panelInstructions(question: string, panellists: readonly string[]): string {
  return [
    `This is a panel: ${panellists.map((n) => `@${n}`).join(", ")} each answer the same question at once, ` +
      "independently, and the room's assistant then sums up. Give your own view, briefly.",
    `The panel question: ${question}`
  ].join("\n");
}

function missingReason(result: PanelResult): string {
  if (result.status === "aborted") return "stopped before answering";
  if (result.status === "error") return result.error ? `failed: ${result.error}` : "failed";
  return "gave an empty answer";
}

/** The request the assistant answers with its synthesis. */
export function synthesisRequest(question: string, results: readonly PanelResult[]): string {
  const answered = results.filter((r) => r.status === "completed" && r.text.trim());
  const missing = results.filter((r) => !answered.includes(r));
  const lines = [`Panel question: ${question}`, ""];
  for (const result of answered) {
    const text = result.text.trim();
    const quoted = text.length > MAX_PANEL_ANSWER_CHARS ? `${text.slice(0, MAX_PANEL_ANSWER_CHARS)}…` : text;
    lines.push(`@${result.name} said:`, quoted, "");
  }
  lines.push(
    missing.length > 0
      ? `Missing from the panel: ${missing.map((r) => `@${r.name} (${missingReason(r)})`).join("; ")}.`
      : "Every panellist answered."
  );
  lines.push(
    "",
    "Write a short synthesis for the room: where the panellists agree, where they differ, naming who said what " +
      "(as @Name). If anyone is missing, say so by name."
  );
  return lines.join("\n");
}

export const SYNTHESIS_SYSTEM_PROMPT =
  "You are the room's assistant. A panel of AI personas has just answered a question; sum up their answers " +
  "faithfully, attribute each point to the persona who made it, and never invent what a missing panellist would say.";
