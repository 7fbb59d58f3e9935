/**
 * Who made a stored row (a share link, an invitation): the overseer keeps
 * the maker as the JSON of a MessageAuthor in `created_by`. A row that
 * cannot be read names an unknown maker rather than failing the list it is in.
 */
import type { MessageAuthor } from "@/shared/identity";

export function storedAuthor(row: { created_by: string }): MessageAuthor {
  try {
    return JSON.parse(row.created_by) as MessageAuthor;
  } catch {
    return { id: "unknown", name: "Unknown" };
  }
}
