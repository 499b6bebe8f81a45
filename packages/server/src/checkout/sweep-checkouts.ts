import { sql } from 'kysely';
import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { lockCheckout } from './checkout-record';
import { syncCheckout } from './sync-checkout';

/** Sessions looked at per sweep; the rest wait for the next one (bounded work per run). */
const SWEEP_LIMIT = 200;

/**
 * The periodic side of checkout: open sessions past their expiry on their merchant's clock (or past
 * their open boleto's), open sessions whose latest payment moved since the session last applied it (a
 * card outcome from the payment worker), and paid boletos whose compensation is due, are synced. Each is locked and re-checked, so workers sweeping at once apply a
 * change once.
 * @example await sweepCheckouts(ctx);
 */
export async function sweepCheckouts(ctx: AppContext): Promise<number> {
  const due = await ctx.db
    .selectFrom('checkout_sessions')
    .innerJoin('merchants', 'merchants.id', 'checkout_sessions.merchant_id')
    .leftJoin('payments', 'payments.payment_token', 'checkout_sessions.current_payment_token')
    .leftJoin('checkout_payment_codes', 'checkout_payment_codes.payment_token', 'checkout_sessions.current_payment_token')
    .select(['checkout_sessions.checkout_id', 'checkout_sessions.merchant_id'])
    .where('checkout_sessions.status', 'in', ['CREATED', 'PROCESSING'])
    .where((eb) => {
      const merchantNowSql = sql<Date>`now() + (merchants.clock_offset_ms * interval '1 millisecond')`;
      return eb.or([
        // Past the session's expiry, unless its open code attempt (a boleto before its due date ends, or a
        // boleto paid and compensating) keeps it open; such sessions come back when that changes.
        eb.and([
          eb(merchantNowSql, '>=', eb.ref('checkout_sessions.expires_at')),
          eb.or([
            eb('payments.payment_token', 'is', null),
            eb('payments.status', 'not in', ['CREATED', 'PROCESSING']),
            eb('payments.method', 'not in', ['BOLETO']),
            eb.and([eb('payments.status', '=', 'CREATED'), eb(merchantNowSql, '>=', eb.ref('payments.expires_at'))]),
          ]),
        ]),
        eb('payments.status', 'is distinct from', eb.ref('checkout_sessions.current_payment_status')).and('payments.payment_token', 'is not', null),
        eb.and([eb('payments.status', '=', 'PROCESSING'), eb(merchantNowSql, '>=', eb.ref('checkout_payment_codes.compensates_at'))]),
      ]);
    })
    .limit(SWEEP_LIMIT)
    .execute();
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
