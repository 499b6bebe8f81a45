import type { Selectable } from 'kysely';
import type { PaymentsTable } from '../db/tables/payments';
import type { NewJob } from '../jobs/queue';

/** A payment's row (PaymentRow of payment-record.ts, named from its table so that file may import this one). */
type PaymentRow = Selectable<PaymentsTable>;

/**
 * What a payment's status change tells the domains above payments, as jobs enqueued in the same
 * transaction (or the same statement) as the change, so a committed change always has them and a
 * rolled-back one never does. Payments name no domain above them: the job kind is defined here and its
 * handler lives with the domain that listens (checkout/payment-changed.ts, registered in job-registry.ts).
 */

/** The job kind a payment of a hosted checkout session enqueues whenever its status changes (or it joins a session). */
export const PAYMENT_CHANGED_JOB = 'payment.changed';

/** The payload of a PAYMENT_CHANGED_JOB. */
export interface PaymentChangedJob {
  paymentToken: string;
  merchantId: string;
  checkoutId: string;
}

/**
 * The follow-up jobs of a payment as it now is: one PAYMENT_CHANGED_JOB when it belongs to a checkout
 * session, none otherwise. Each carries the payment token as its resource id, so a statement of
 * data-modifying CTEs can enqueue it only where the change happened (jobsInsertFrom, jobs/queue.ts);
 * plain statements pass them to enqueueMany.
 * @example await enqueueMany(trx, paymentFollowUps(updated));
 * @example sql`…, followups as (${jobsInsertFrom('updated', 'payment_token', rows.flatMap(paymentFollowUps))}) …`
 */
export function paymentFollowUps(row: Pick<PaymentRow, 'payment_token' | 'merchant_id' | 'checkout_id' | 'status'>): (NewJob & { resourceId: string })[] {
  if (!row.checkout_id) return [];
  const payload: PaymentChangedJob = { paymentToken: row.payment_token, merchantId: row.merchant_id, checkoutId: row.checkout_id };
  return [{ kind: PAYMENT_CHANGED_JOB, payload, resourceId: row.payment_token }];
}
