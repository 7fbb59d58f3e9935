/** Workspace settings (daily token budget), one row per key in the overseer's SQLite. */
type Key = "dailyTokenBudget";

export class WorkspaceSettingsTable {
  constructor(private readonly sql: SqlStorage) {
    sql.exec("CREATE TABLE IF NOT EXISTS workspace_settings (key TEXT PRIMARY KEY, value INTEGER NOT NULL)");
  }

  get(key: Key): number | null {
    const row = this.sql
      .exec<{ value: number }>("SELECT value FROM workspace_settings WHERE key = ?", key)
      .toArray()[0];
    return row ? row.value : null;
  }

  set(key: Key, value: number) {
    this.sql.exec(
      "INSERT INTO workspace_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      key,
      value
    );
  }
}
