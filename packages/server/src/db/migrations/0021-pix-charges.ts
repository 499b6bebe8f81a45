import { sql, type Kysely } from 'kysely';

/**
 * PIX charges issued by a PSP and still open are read back periodically (checkout/pix-charges.ts):
 * they are the connector operations of reference `<payment_token>:charge` still PENDING, looked at
 * oldest first. This partial index holds exactly those, so the pass reads only open charges.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index connector_operations_open_charges_idx on connector_operations (updated_at)
    where result->>'status' = 'PENDING' and reference like '%:charge'`.execute(db);
}

