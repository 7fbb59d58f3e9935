/**
 * Where a room was forked from (one row in its own SQLite, written when a
 * fork fills it), and the header every export opens with, which carries
 * that link back along with the room's settings and roster.
 */
import type { Persona } from "../../../shared/personas";
import type { RoomSettings } from "../../../shared/protocol";
import {
  ROOM_EXPORT_FORMAT,
  ROOM_EXPORT_VERSION,
  type RoomExportHeader,
  type RoomOrigin
} from "../../../shared/transfer";

type Sql = <T>(strings: TemplateStringsArray, ...values: (string | number | boolean | null)[]) => T[];

export class RoomOriginRecord {
  constructor(private readonly sql: Sql) {}

  /** Where this room was forked from; null when it was not. */
  get(): RoomOrigin | null {
    this.#createTable();
    const row = this.sql<{ json: string }>`SELECT json FROM room_origin WHERE id = 1`[0];
    return row ? (JSON.parse(row.json) as RoomOrigin) : null;
  }

  set(origin: RoomOrigin) {
    this.#createTable();
    this.sql`INSERT OR REPLACE INTO room_origin (id, json) VALUES (1, ${JSON.stringify(origin)})`;
  }

  // Created on first use: most rooms are never forks.
  #createTable() {
    this.sql`CREATE TABLE IF NOT EXISTS room_origin (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)`;
  }
}

export function exportHeader(room: {
  id: string;
  settings: RoomSettings;
  personas: Persona[];
  origin: RoomOrigin | null;
}): RoomExportHeader {
  return {
    format: ROOM_EXPORT_FORMAT,
    version: ROOM_EXPORT_VERSION,
    exportedAt: new Date().toISOString(),
    room: {
      id: room.id,
      name: room.settings.name,
      settings: room.settings,
      personas: room.personas,
      origin: room.origin
    }
  };
}
