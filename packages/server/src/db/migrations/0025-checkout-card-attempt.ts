import { sql, type Kysely } from 'kysely';

/**
 * A card attempt being set up (person, card, 3DS, sendPayment) held its checkout session by writing the
 * marker STARTING into `current_payment_status`, a column of payment statuses. The claim is its own fact
 * now: `card_attempt_started_at`, null when no card attempt is being set up. A session that holds the
 * marker keeps its claim from the time it was last written (as the marker's staleness was counted), with
 * no payment status, as every claim shows none until its payment is attached.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table checkout_sessions add column card_attempt_started_at timestamptz`.execute(db);
  await sql`
    update checkout_sessions as s
    set card_attempt_started_at = s.updated_at, current_payment_status = null
    where s.current_payment_status = 'STARTING'`.execute(db);
}
