/**
 * Day dividers in a transcript: which messages start a new calendar day (in
 * the reader's time zone), and how to name that day.
 */
import { dateFormat } from "./intl-cache";

/** The local calendar day of a timestamp, as a comparable key. */
function dayKey(timestamp: number): string {
  const d = new Date(timestamp);
  return `${d.getFullYear()}-${d.getMonth()}-${d.getDate()}`;
}

/** Whether a message at `timestamp` starts a new day after one at `previous`. */
export function startsNewDay(previous: number | undefined, timestamp: number | undefined): boolean {
  if (timestamp === undefined) return false;
  if (previous === undefined) return true;
  return dayKey(previous) !== dayKey(timestamp);
}

/** "Today", "Yesterday", or a date: "Monday, 30 November" (with the year when not this year). */
export function dayLabel(timestamp: number, now: number, locale?: string): string {
  if (dayKey(timestamp) === dayKey(now)) return "Today";
  const yesterday = new Date(now);
  yesterday.setDate(yesterday.getDate() - 1);
  if (dayKey(timestamp) === dayKey(yesterday.getTime())) return "Yesterday";
  const sameYear = new Date(timestamp).getFullYear() === new Date(now).getFullYear();
  return dateFormat(
    { weekday: "long", day: "numeric", month: "long", ...(sameYear ? {} : { year: "numeric" }) },
    locale
  ).format(timestamp);
}
