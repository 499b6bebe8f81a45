import { sql, type Kysely } from 'kysely';

/**
 * GET /payments finds a payment by the merchant's own reference (payments/list-payments.ts). The reference
 * leads: an index that began with merchant_id would offer the planner a merchant-wide scan for every
 * lookup by (payment_token, merchant_id), such as the foreign-key checks of refunds and disputes, and with
 * a table not yet analysed it took it (a bulk load of refunds went from seconds to many minutes).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index payments_reference_idx on payments (reference_id, merchant_id)`.execute(db);
}
