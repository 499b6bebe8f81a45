import { sql, type Kysely } from 'kysely';

/**
 * Sessions of the merchant dashboard. The browser holds a random session id in an HttpOnly cookie;
 * the database holds only its SHA-256, so a copy of the table cannot sign anyone in.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table dashboard_sessions (
      id_hash text primary key,
      merchant_id uuid not null references merchants(id),
      user_id uuid not null references users(id),
      created_at timestamptz not null,
      last_seen_at timestamptz not null,
      expires_at timestamptz not null
    )`.execute(db);
  await sql`create index dashboard_sessions_expires_idx on dashboard_sessions (expires_at)`.execute(db);
}
