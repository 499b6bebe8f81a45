import { sql, type Kysely } from 'kysely';

/** GET /payments finds a payment by the merchant's own reference (payments/list-payments.ts). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index payments_reference_idx on payments (reference_id, merchant_id)`.execute(db);
}
