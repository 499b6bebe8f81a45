import { sql, type Kysely } from 'kysely';

/**
 * The merchant's time zone, in which the dashboard shows times (docs/dashboard.md, "Times and clocks"):
 * an IANA name, null until the merchant picks one (the dashboard then shows America/Sao_Paulo).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table merchants add column time_zone text`.execute(db);
}
