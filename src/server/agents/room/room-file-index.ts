/**
 * The room's full-text index of its files' passages: an FTS5 table in the
 * room's own SQLite, ranked by BM25. A question becomes a bounded OR of its
 * distinctive words (domain/files/text-passages.ts) and the query asks for
 * the top few only, so its cost follows the words' matches, not the room's
 * message count, and no embedding model is needed.
 */
import type { RetrievedPassage } from "@/server/domain/files/file-context";
import { type Passage, passageQuery } from "@/server/domain/files/text-passages";

type HitRow = {
  rowid: number;
  file_id: string;
  page: number | null;
  line_from: number | null;
  line_to: number | null;
  text: string;
  name: string;
  content_type: string;
};

export class RoomFileIndex {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS room_file_passages USING fts5(
      text, file_id UNINDEXED, page UNINDEXED, line_from UNINDEXED, line_to UNINDEXED,
      tokenize = 'porter unicode61 remove_diacritics 2'
    )`);
  }

  add(fileId: string, passages: readonly Passage[]) {
    for (const p of passages) {
      this.sql.exec(
        "INSERT INTO room_file_passages (text, file_id, page, line_from, line_to) VALUES (?, ?, ?, ?, ?)",
        p.text,
        fileId,
        p.page ?? null,
        p.lineFrom ?? null,
        p.lineTo ?? null
      );
    }
  }

  /** A file's passages in the order they were added (a copy of the file for a fork or an export). */
  passagesOf(fileId: string): Passage[] {
    return this.sql
      .exec<{ text: string; page: number | null; line_from: number | null; line_to: number | null }>(
        "SELECT text, page, line_from, line_to FROM room_file_passages WHERE file_id = ? ORDER BY rowid",
        fileId
      )
      .toArray()
      .map((row) => ({
        text: row.text,
        ...(row.page !== null ? { page: row.page } : {}),
        ...(row.line_from !== null && row.line_to !== null ? { lineFrom: row.line_from, lineTo: row.line_to } : {})
      }));
  }

  deleteFile(fileId: string) {
    this.sql.exec("DELETE FROM room_file_passages WHERE file_id = ?", fileId);
  }

  /**
   * The best passages for a question across the room's files, after the
   * best two of each file in `attached`, which the question's message
   * carries: those come first.
   */
  search(question: string, limit: number, attached: readonly string[] = []): RetrievedPassage[] {
    const query = passageQuery(question);
    const select = `SELECT p.rowid AS rowid, p.file_id AS file_id, p.page AS page, p.line_from AS line_from,
      p.line_to AS line_to, p.text AS text, f.name AS name, f.content_type AS content_type
      FROM room_file_passages p JOIN room_files f ON f.id = p.file_id`;
    const hits: HitRow[] = [];
    const seen = new Set<number>();
    const take = (rows: HitRow[]) => {
      for (const row of rows) {
        if (seen.has(row.rowid)) continue;
        seen.add(row.rowid);
        hits.push(row);
      }
    };
    for (const fileId of attached) {
      const best = query
        ? this.sql
            .exec<HitRow>(
              `${select} WHERE room_file_passages MATCH ? AND p.file_id = ? ORDER BY bm25(room_file_passages) LIMIT 2`,
              query,
              fileId
            )
            .toArray()
        : [];
      // An attached file the question does not find is named to the model instead (file-context.ts).
      take(best);
    }
    if (query && hits.length < limit) {
      take(
        this.sql
          .exec<HitRow>(
            `${select} WHERE room_file_passages MATCH ? ORDER BY bm25(room_file_passages) LIMIT ?`,
            query,
            limit
          )
          .toArray()
      );
    }
    return hits.slice(0, Math.max(limit, attached.length)).map((row) => ({
      passageId: String(row.rowid),
      fileId: row.file_id,
      name: row.name,
      contentType: row.content_type,
      ...(row.page !== null ? { page: row.page } : {}),
      ...(row.line_from !== null && row.line_to !== null ? { lineFrom: row.line_from, lineTo: row.line_to } : {}),
      text: row.text
    }));
  }
}
