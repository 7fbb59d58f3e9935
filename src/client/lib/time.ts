import { dateFormat, numberFormat } from "./intl-cache";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "just now", "2 min ago", "3 h ago", "yesterday", "4 days ago", then a date. */
export function relativeTime(timestamp: number, now: number): string {
  const diff = Math.max(0, now - timestamp);
  if (diff < 45_000) return "just now";
  if (diff < HOUR) return `${Math.max(1, Math.round(diff / MINUTE))} min ago`;
  if (diff < DAY) return `${Math.round(diff / HOUR)} h ago`;
  if (diff < 2 * DAY) return "yesterday";
  if (diff < 7 * DAY) return `${Math.floor(diff / DAY)} days ago`;
  const date = new Date(timestamp);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return dateFormat(sameYear ? { month: "short", day: "numeric" } : { dateStyle: "medium" }).format(date);
}

/** Clock time for a message, with the date when it is not today. */
export function messageTime(timestamp: number, now: number): string {
  const date = new Date(timestamp);
  const today = new Date(now);
  const time = dateFormat({ hour: "numeric", minute: "2-digit" }).format(date);
  if (date.toDateString() === today.toDateString()) return time;
  return `${dateFormat({ month: "short", day: "numeric" }).format(date)}, ${time}`;
}

export function fullDateTime(timestamp: number): string {
  return dateFormat({ dateStyle: "full", timeStyle: "short" }).format(timestamp);
}

export function formatCount(n: number): string {
  return numberFormat({ notation: n >= 10_000 ? "compact" : "standard" }).format(n);
}

/** "1 message", "1,234 messages": a count with its noun, singular for one. */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${numberFormat().format(n)} ${n === 1 ? singular : plural}`;
}
