import { sql, type Kysely } from 'kysely';

/**
 * A payment keeps the country of its payer's address (`order_ip_country`), looked up once when the
 * payment is created (lib/ip-country.ts), so its details and reports show what was known then, and a
 * report can filter and group by it in SQL. Payments made before have none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table payments add column ip_country text`.execute(db);
}
