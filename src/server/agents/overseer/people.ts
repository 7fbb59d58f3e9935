/**
 * The workspace's people, in the overseer's SQLite: everyone who has used
 * the workspace (signed-in and Access identities; not the shared anonymous
 * identity, nor API tokens, which have their own table), with the role an
 * admin gave them. Rows are written the first time someone is seen, and
 * their name and last visit at most once a minute after that.
 */
import type { IdentityKind } from "@/shared/identity";
import type { Person } from "@/shared/members";
import type { WorkspaceRole } from "@/shared/permissions";

type PersonRow = {
  identity_id: string;
  name: string;
  kind: string;
  role: string;
  configured_admin: number;
  first_seen: number;
  last_seen: number;
};

const TOUCH_INTERVAL_MS = 60_000;

const roleOf = (value: string | undefined): WorkspaceRole | null =>
  value === "admin" ? "admin" : value === "member" ? "member" : null;

export class PeopleTable {
  /** Identity → when its row was last written, so a busy caller costs no write per request. */
  #touched = new Map<string, { at: number; name: string; configured: boolean }>();

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS people (
      identity_id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      kind TEXT NOT NULL,
      role TEXT NOT NULL DEFAULT 'member',
      configured_admin INTEGER NOT NULL DEFAULT 0,
      first_seen INTEGER NOT NULL,
      last_seen INTEGER NOT NULL
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS people_by_name ON people (name COLLATE NOCASE)");
  }

  /** The ids of the people with exactly this name, ignoring case (an index lookup: mentions, overseer/notification-inbox.ts). */
  idsNamed(name: string): string[] {
    return this.sql
      .exec<{ identity_id: string }>("SELECT identity_id FROM people WHERE name = ? COLLATE NOCASE LIMIT 20", name)
      .toArray()
      .map((row) => row.identity_id);
  }

  /** Someone who has used the workspace, by id; null for anyone else. */
  person(identityId: string): { id: string; name: string; kind: IdentityKind } | null {
    const row = this.sql.exec<PersonRow>("SELECT * FROM people WHERE identity_id = ?", identityId).toArray()[0];
    return row ? { id: row.identity_id, name: row.name, kind: row.kind as IdentityKind } : null;
  }

  /**
   * People whose name contains `query` (ignoring case; everyone for ""),
   * by name, leaving out `except`: who can be added to a room.
   */
  named(query: string, except: ReadonlySet<string>, limit: number): Array<{ id: string; name: string }> {
    const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.sql
      .exec<{ identity_id: string; name: string }>(
        "SELECT identity_id, name FROM people WHERE name LIKE ? ESCAPE '\\' ORDER BY name COLLATE NOCASE, identity_id LIMIT ?",
        pattern,
        limit + except.size
      )
      .toArray()
      .filter((row) => !except.has(row.identity_id))
      .slice(0, limit)
      .map((row) => ({ id: row.identity_id, name: row.name }));
  }

  /** The stored role; null for someone never seen. */
  role(identityId: string): WorkspaceRole | null {
    return roleOf(
      this.sql.exec<{ role: string }>("SELECT role FROM people WHERE identity_id = ?", identityId).toArray()[0]?.role
    );
  }

  /** Whether this person is an admin now, by the configuration when last seen or by a stored role. */
  isAdmin(identityId: string): boolean {
    const row = this.sql
      .exec<{ role: string; configured_admin: number }>(
        "SELECT role, configured_admin FROM people WHERE identity_id = ?",
        identityId
      )
      .toArray()[0];
    return row?.role === "admin" || row?.configured_admin === 1;
  }

  hasAdmin(): boolean {
    return this.sql.exec("SELECT 1 FROM people WHERE role = 'admin' LIMIT 1").toArray().length > 0;
  }

  adminCount(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM people WHERE role = 'admin'").one().n;
  }

  /**
   * Records a visit: a new row (with `firstRole`), or a fresher name, visit
   * time and configured-admin flag on an old one. Returns whether the row is new.
   */
  see(
    person: { id: string; name: string; kind: IdentityKind; configuredAdmin: boolean },
    firstRole: () => WorkspaceRole,
    now = Date.now()
  ): boolean {
    const last = this.#touched.get(person.id);
    if (
      last &&
      now - last.at < TOUCH_INTERVAL_MS &&
      last.name === person.name &&
      last.configured === person.configuredAdmin
    ) {
      return false;
    }
    const exists = this.sql.exec("SELECT 1 FROM people WHERE identity_id = ?", person.id).toArray().length > 0;
    if (exists) {
      this.sql.exec(
        "UPDATE people SET name = ?, kind = ?, configured_admin = ?, last_seen = ? WHERE identity_id = ?",
        person.name,
        person.kind,
        person.configuredAdmin ? 1 : 0,
        now,
        person.id
      );
    } else {
      this.sql.exec(
        `INSERT INTO people (identity_id, name, kind, role, configured_admin, first_seen, last_seen)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        person.id,
        person.name,
        person.kind,
        firstRole(),
        person.configuredAdmin ? 1 : 0,
        now,
        now
      );
    }
    this.#touched.set(person.id, { at: now, name: person.name, configured: person.configuredAdmin });
    return !exists;
  }

  /** Whether there is such a person. */
  setRole(identityId: string, role: WorkspaceRole): boolean {
    return this.sql.exec("UPDATE people SET role = ? WHERE identity_id = ?", role, identityId).rowsWritten > 0;
  }

  /** Admins first, then by name. */
  list(): Person[] {
    return this.sql
      .exec<PersonRow>("SELECT * FROM people ORDER BY role = 'admin' DESC, name COLLATE NOCASE, identity_id")
      .toArray()
      .map((row) => ({
        id: row.identity_id,
        name: row.name,
        kind: row.kind as IdentityKind,
        role: row.configured_admin === 1 ? "admin" : (roleOf(row.role) ?? "member"),
        configuredAdmin: row.configured_admin === 1,
        firstSeen: row.first_seen,
        lastSeen: row.last_seen
      }));
  }
}
