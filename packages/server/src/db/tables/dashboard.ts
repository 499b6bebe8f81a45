/** Table types of the dashboard (migration 0020-dashboard); merged into db/schema.ts's Database. */
export interface DashboardSessionsTable {
  /** SHA-256 of the session id, hex; the id itself lives only in the browser's cookie. */
  id_hash: string;
  merchant_id: string;
  user_id: string;
  created_at: Date;
  last_seen_at: Date;
  /** The earlier of the idle limit (moved by each request) and the absolute limit. */
  expires_at: Date;
}

export interface DashboardTables {
  dashboard_sessions: DashboardSessionsTable;
}
