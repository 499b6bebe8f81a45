import { sql, type Kysely } from 'kysely';

/**
 * Every terminal payment status stamps its own time (payments/states.ts): REFUNDED gets `refunded_at`.
 * Payments refunded before this column existed take the time of their REFUNDED history line.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table payments add column refunded_at timestamptz`.execute(db);
  await sql`
    update payments as p set refunded_at = h.at
    from (select payment_token, max(at) as at from payment_status_history where status = 'REFUNDED' group by payment_token) as h
    where h.payment_token = p.payment_token and p.status = 'REFUNDED'`.execute(db);
}
