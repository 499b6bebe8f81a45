import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import type { Job, JobKind } from '../jobs/queue';
import type { PaymentChangedJob } from '../payments/payment-followups';
import { lockCheckout } from './checkout-record';
import { syncCheckout } from './sync-checkout';

/**
 * How a session learns of its payments: every status change of a payment of a session enqueues a
 * PAYMENT_CHANGED_JOB in the change's own transaction (payments/payment-followups.ts), and this
 * handler applies it. It locks the session (then syncCheckout locks its attempt's payment: the order
 * every checkout writer takes), applies the attempt's outcome with nextCheckoutState and writes the
 * session's new status with its `checkout.status_changed` event, in one transaction. It reads the
 * payment as it is now, never as the job saw it, so a job run twice, late or out of order applies
 * nothing twice, and a job for a payment that is no longer the session's attempt changes nothing.
 * Readers of a session (GET /checkout/<id>, the page and its poll) only read what this wrote.
 * @example jobs.set(PAYMENT_CHANGED_JOB, paymentChangedJob(ctx));
 */
export function paymentChangedJob(ctx: AppContext): JobKind {
  return {
    run: async (job: Job<PaymentChangedJob>) => {
      const { checkoutId, merchantId } = job.payload;
      const now = await merchantNow(ctx.db, merchantId);
      await ctx.db.transaction().execute(async (trx) => {
        const session = await lockCheckout(trx, checkoutId, merchantId);
        if (session) await syncCheckout(trx, session, now);
      });
    },
  };
}
