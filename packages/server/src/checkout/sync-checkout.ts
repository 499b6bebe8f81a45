import { sql } from 'kysely';
import type { Db } from '../db/database';
import { captureJournal, changeStatus, lockPayment, type PaymentRow } from '../payments/payment-record';
import { updateCheckout, type CheckoutRow } from './checkout-record';
import { attemptOutcome, isFinalCheckoutStatus, nextCheckoutState, type AttemptOutcome } from './states';

/**
 * A card attempt being set up (person, card, 3DS, sendPayment) holds the session this long at most,
 * counted from `card_attempt_started_at` (see pay-with-card.ts).
 */
export const CARD_ATTEMPT_CLAIM_MS = 120_000;

/**
 * Brings a locked session up to date with its latest attempt and its expiry, in the caller's
 * transaction: an attempt's payment past its own expiry and still CREATED becomes EXPIRED, a paid boleto whose
 * compensation time has come becomes PAID, and the attempt's
 * outcome is applied by `nextCheckoutState` (checkout/states.ts). Every writer of a session calls this
 * first; so does the PAYMENT_CHANGED_JOB that each status change of a session's payment enqueues
 * (payment-changed.ts), and the sweep for what time alone changes (sweep-checkouts.ts). Readers do not:
 * they read the session as these left it (get-checkout.ts).
 * @example const current = await syncCheckout(trx, await lockCheckout(trx, id), now);
 */
export async function syncCheckout(trx: Db, session: CheckoutRow, now: Date): Promise<CheckoutRow> {
  if (isFinalCheckoutStatus(session.status)) return session;
  const expired = now.getTime() >= session.expires_at.getTime();
  let payment: PaymentRow | undefined;
  if (session.current_payment_token) payment = await lockPayment(trx, session.merchant_id, session.current_payment_token);
  // A card attempt is being set up (pay-with-card.ts); one left behind by a crashed request is forgotten after a while.
  const claimedAt = session.card_attempt_started_at;
  const claimed = claimedAt !== null;
  const starting = claimedAt !== null && now.getTime() - claimedAt.getTime() <= CARD_ATTEMPT_CLAIM_MS;
  // An attempt's payment waiting for its payer lapses at its own expiry: the session's for most, the end
  // of its due date for a boleto. A card payment being sent right now is left to its sender.
  const lapsed = payment && now.getTime() >= (payment.expires_at ?? session.expires_at).getTime();
  if (payment && lapsed && !starting && payment.status === 'CREATED') {
    payment = await changeStatus(trx, payment, 'EXPIRED', now);
  }
  if (payment && payment.method === 'BOLETO' && payment.status === 'PROCESSING') payment = await compensateBoleto(trx, payment, now);

  let outcome: AttemptOutcome | null = payment ? attemptOutcome(payment.status) : null;
  let paymentStatus = payment?.status ?? session.current_payment_status;
  let cardAttemptStartedAt = session.card_attempt_started_at;
  if (starting) {
    // The attempt's payment is being sent: the session shows no payment status until it is attached.
    outcome = 'OPEN';
    paymentStatus = session.current_payment_status;
  } else if (claimed) {
    cardAttemptStartedAt = null;
    if (payment?.status !== 'CREATED') {
      // A forgotten claim: the session goes on as if no attempt were open. (The card payment that
      // generation opened, still CREATED, is not forgotten: it goes on waiting for its card.)
      outcome = null;
      paymentStatus = null;
    }
  }

  const next = nextCheckoutState({ mode: session.mode, status: session.status, attempts: await failedAttempts(trx, session.checkout_id), outcome, expired });
  if (next.status === session.status && paymentStatus === session.current_payment_status && cardAttemptStartedAt === session.card_attempt_started_at) return session;
  return updateCheckout(trx, session, now, {
    status: next.status,
    current_payment_status: paymentStatus,
    card_attempt_started_at: cardAttemptStartedAt,
    ...(next.endReason ? { end_reason: next.endReason } : {}),
  });
}

/**
 * A paid boleto waits PROCESSING for its compensation (boleto-term.ts); once that time has come on the
 * merchant clock it becomes PAID, with the capture journal, in the caller's transaction.
 */
async function compensateBoleto(trx: Db, payment: PaymentRow, now: Date): Promise<PaymentRow> {
  const codes = await trx.selectFrom('checkout_payment_codes').select(['compensates_at']).where('payment_token', '=', payment.payment_token).executeTakeFirst();
  if (!codes?.compensates_at || now.getTime() < codes.compensates_at.getTime()) return payment;
  return changeStatus(trx, payment, 'PAID', now, { authorized_minor: payment.amount_minor, captured_minor: payment.amount_minor }, (row) => [captureJournal(row, now)]);
}

/** Attempts that the customer's payment failed (DECLINED or ERROR); leaving a PIX for a card is no failure. */
async function failedAttempts(trx: Db, checkoutId: string): Promise<number> {
  const row = await trx
    .selectFrom('payments')
    .select(sql<string>`count(*)`.as('n'))
    .where('checkout_id', '=', checkoutId)
    .where('status', 'in', ['DECLINED', 'ERROR'])
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
