import { sql, type Kysely } from 'kysely';

/**
 * Checkout sessions are told of their payments (a `payment.changed` job enqueued with each status
 * change, checkout/payment-changed.ts) instead of a sweep pulling every open session's payment, and
 * the sweep is left with what time alone changes (checkout/sweep-checkouts.ts). Each of its time
 * columns gets a partial index of the few rows that wait on it: an attempt's payment still CREATED, a
 * paid boleto compensating, a card attempt's claim; and the merchants' clock offsets one for the
 * latest merchant clock. An open session whose attempt's payment moved before this migration, and
 * that no sweep applied yet, is told once now.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index payments_checkout_created_idx on payments (expires_at) where checkout_id is not null and status = 'CREATED'`.execute(db);
  await sql`create index payments_checkout_compensating_idx on payments (checkout_id) where checkout_id is not null and status = 'PROCESSING' and method = 'BOLETO'`.execute(db);
  await sql`create index checkout_sessions_card_attempt_idx on checkout_sessions (card_attempt_started_at) where card_attempt_started_at is not null`.execute(db);
  await sql`create index merchants_clock_offset_idx on merchants (clock_offset_ms)`.execute(db);
  await sql`
    insert into jobs (kind, payload)
    select 'payment.changed', jsonb_build_object('paymentToken', p.payment_token, 'merchantId', p.merchant_id, 'checkoutId', p.checkout_id)
    from checkout_sessions as s
    join payments as p on p.payment_token = s.current_payment_token and p.checkout_id = s.checkout_id
    where s.status in ('CREATED', 'PROCESSING') and p.status is distinct from s.current_payment_status`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index merchants_clock_offset_idx`.execute(db);
  await sql`drop index checkout_sessions_card_attempt_idx`.execute(db);
  await sql`drop index payments_checkout_compensating_idx`.execute(db);
  await sql`drop index payments_checkout_created_idx`.execute(db);
}
