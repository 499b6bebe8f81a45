import { sql } from 'kysely';
import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { lockCheckout } from './checkout-record';
import { CARD_ATTEMPT_CLAIM_MS, syncCheckout } from './sync-checkout';

/** Sessions looked at per sweep; the rest wait for the next one (bounded work per run). */
const SWEEP_LIMIT = 200;

/**
 * The periodic side of checkout, for what time alone changes; a payment's status changes reach their
 * session without it (checkout/payment-changed.ts). Due on its merchant's clock are:
 * - an open session past its expiry, unless its open code attempt keeps it open (a boleto before the end
 *   of its due date, or paid and compensating);
 * - an open session whose attempt's payment, still CREATED, is past its own expiry (a boleto's due date);
 * - a paid boleto whose compensation time has come (PROCESSING → PAID);
 * - a card attempt's claim older than CARD_ATTEMPT_CLAIM_MS, left by a request that died.
 * Each is selected by its time column through a partial index of the few rows that wait for it
 * (dueCheckouts), never by reading every open session, then locked and synced (syncCheckout), so
 * workers sweeping at once apply a change once.
 * @example await sweepCheckouts(ctx);
 */
export async function sweepCheckouts(ctx: AppContext): Promise<number> {
  const due = await dueCheckouts(ctx.db, SWEEP_LIMIT);
  let changed = 0;
  for (const { checkout_id, merchant_id } of due) {
    const now = await merchantNow(ctx.db, merchant_id);
    changed += await ctx.db.transaction().execute(async (trx) => {
      const session = await lockCheckout(trx, checkout_id, merchant_id);
      if (!session) return 0;
      const synced = await syncCheckout(trx, session, now);
      return synced === session ? 0 : 1;
    });
  }
  return changed;
}

/**
 * The sessions that time has made due (see sweepCheckouts), at most `limit`. Merchant clocks differ by
 * their offsets (sandbox clock control), so each time column is bounded once by the latest merchant
 * clock, which an index range can use, and then compared exactly with its own merchant's.
 * @example const due = await dueCheckouts(db, 200);
 */
export async function dueCheckouts(db: Db, limit: number): Promise<{ checkout_id: string; merchant_id: string }[]> {
  const merchantNowOf = sql`now() + m.clock_offset_ms * interval '1 millisecond'`;
  const claimMs = sql`${`${CARD_ATTEMPT_CLAIM_MS} milliseconds`}::interval`;
  const { rows } = await sql<{ checkout_id: string; merchant_id: string }>`
    with latest as materialized (
      select now() + coalesce(max(clock_offset_ms), 0) * interval '1 millisecond' as now from merchants
    )
    select s.checkout_id, s.merchant_id
    from checkout_sessions as s
    join merchants as m on m.id = s.merchant_id
    left join payments as p on p.payment_token = s.current_payment_token
    where s.status in ('CREATED', 'PROCESSING') and s.expires_at <= (select now from latest)
      and s.expires_at <= ${merchantNowOf}
      and (p.payment_token is null or p.method <> 'BOLETO' or p.status not in ('CREATED', 'PROCESSING')
        or (p.status = 'CREATED' and p.expires_at <= ${merchantNowOf}))
    union
    select s.checkout_id, s.merchant_id
    from payments as p
    join merchants as m on m.id = p.merchant_id
    join checkout_sessions as s on s.checkout_id = p.checkout_id and s.current_payment_token = p.payment_token
    where p.waiting_checkout_expires_at <= (select now from latest)
      and p.waiting_checkout_expires_at <= ${merchantNowOf} and s.status in ('CREATED', 'PROCESSING')
    union
    select s.checkout_id, s.merchant_id
    from payments as p
    join merchants as m on m.id = p.merchant_id
    join checkout_payment_codes as c on c.payment_token = p.payment_token
    join checkout_sessions as s on s.checkout_id = p.checkout_id and s.current_payment_token = p.payment_token
    where p.compensating_checkout_id is not null
      and c.compensates_at <= ${merchantNowOf}
    union
    select s.checkout_id, s.merchant_id
    from checkout_sessions as s
    join merchants as m on m.id = s.merchant_id
    where s.card_attempt_started_at is not null and s.card_attempt_started_at <= (select now from latest) - ${claimMs}
      and s.card_attempt_started_at <= ${merchantNowOf} - ${claimMs} and s.status in ('CREATED', 'PROCESSING')
    limit ${limit}`.execute(db);
  return rows;
}
