import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { captureJournal, changeStatus, lockPayment, type PaymentRow } from '../payments/payment-record';
import { generateEndToEndId } from '../rails/pix';
import { boletoCompensation } from '../checkout/boleto-term';
import { lockCheckout } from '../checkout/checkout-record';
import { isCodeMethod } from '../checkout/states';
import { syncCheckout } from '../checkout/sync-checkout';

/** The ISPB written in sandbox end-to-end ids, as if every sandbox payer banked at one participant. */
export const SANDBOX_PAYER_ISPB = '00000000';

/**
 * `POST /sandbox/payments/<payment_token>/pay`: the payer pays a code payment (PIX, BOLETO, PICPAY,
 * OXXO, PAYNET, SPEI). Phases, in one transaction: find the payment → lock its session and sync it (so
 * an attempt past its expiry is EXPIRED first and refused) → lock the payment and check it is CREATED →
 * CREATED → PROCESSING → PAID, with an end-to-end id for PIX, a history line and an event per move, and
 * the capture journal (a boleto stops at PROCESSING until it compensates a business day later, see
 * sync-checkout.ts) →
 * apply the outcome to the session (PAID, with its own event). Locks are taken session first, then
 * payment, like every other checkout writer, so concurrent payers and sweeps cannot deadlock; of two
 * payers racing on one payment exactly one succeeds.
 * @example const paid = await payPayment(ctx, merchantId, paymentToken);
 */
export async function payPayment(ctx: AppContext, merchantId: string, paymentToken: string): Promise<PaymentRow> {
  const seen = await ctx.db.transaction().execute((trx) => lockPayment(trx, merchantId, paymentToken));
  if (!seen) throw new ApiError('NOT_FOUND', 'payment_token: payment not found.');
  if (!isCodeMethod(seen.method)) {
    throw new ApiError('SANDBOX_PAY_METHOD_UNSUPPORTED', undefined, { message: `The payment is a ${seen.method} payment.` });
  }
  const now = await merchantNow(ctx.db, merchantId);
  const paid = await ctx.db.transaction().execute(async (trx) => {
    const session = seen.checkout_id ? await lockCheckout(trx, seen.checkout_id, merchantId) : undefined;
    if (session) await syncCheckout(trx, session, now);
    const payment = await lockPayment(trx, merchantId, paymentToken);
    if (!payment) throw new ApiError('NOT_FOUND', 'payment_token: payment not found.');
    const expired = payment.expires_at !== null && now.getTime() >= payment.expires_at.getTime();
    if (payment.status !== 'CREATED' || expired) {
      throw new ApiError('SANDBOX_PAY_NOT_AWAITING', undefined, { message: `The payment is ${expired && payment.status === 'CREATED' ? 'expired' : payment.status}; only a CREATED payment can be paid.` });
    }
    const processing = await changeStatus(trx, payment, 'PROCESSING', now);
    if (payment.method === 'BOLETO') {
      // A boleto paid at a bank compensates a business day later; until then it stays PROCESSING.
      await trx.updateTable('checkout_payment_codes').set({ compensates_at: boletoCompensation(now) }).where('payment_token', '=', payment.payment_token).execute();
      const current = session ? await lockCheckout(trx, session.checkout_id, merchantId) : undefined;
      if (current) await syncCheckout(trx, current, now);
      return processing;
    }
    const result = await changeStatus(trx, processing, 'PAID', now, {
      authorized_minor: payment.amount_minor,
      captured_minor: payment.amount_minor,
      end_to_end_id: payment.method === 'PIX' ? generateEndToEndId(SANDBOX_PAYER_ISPB, { at: now }) : null,
    }, (row) => [captureJournal(row, now)]);
    const current = session ? await lockCheckout(trx, session.checkout_id, merchantId) : undefined;
    if (current) await syncCheckout(trx, current, now);
    return result;
  });
  ctx.workerSignal.poke();
  return paid;
}
