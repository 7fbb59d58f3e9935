/**
 * What a closed-loop run left in one room's storage, against what it sent
 * there: questions not stored, stored more than once, and questions without
 * a text answer. Shared by the concurrency and floor sections.
 */
// biome-ignore lint/suspicious/noExplicitAny: stored messages are read as the REST API returns them
type StoredMessage = { role: string; parts?: any[] };

export interface StoredTally {
  missing: number;
  duplicated: number;
  unanswered: number;
}

export function tallyStored(stored: StoredMessage[], sentTexts: Iterable<string>): StoredTally {
  const counts = new Map<string, number>();
  for (const m of stored) {
    if (m.role !== "user") continue;
    const text = (m.parts ?? []).map((p) => p.text ?? "").join("");
    counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  let missing = 0;
  let duplicated = 0;
  for (const text of sentTexts) {
    const n = counts.get(text) ?? 0;
    if (n === 0) missing++;
    if (n > 1) duplicated += n - 1;
  }
  const users = stored.filter((m) => m.role === "user").length;
  const answers = stored.filter(
    (m) => m.role === "assistant" && (m.parts ?? []).some((p) => p.type === "text" && p.text)
  ).length;
  return { missing, duplicated, unanswered: Math.max(0, users - answers) };
}
