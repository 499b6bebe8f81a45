import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { computeFees, type FeePlan } from '../fees/fee-plan';
import { backoffMs, RetryLater, type Job } from '../jobs/queue';
import { ProcessorTimeoutError, ProcessorUnavailableError, type OperationResult } from '../processor/processor';
import { findCard, processorCard } from '../vault/lookup';
import { changeStatus, lockPayment, postCapture, postHold, type PaymentRow } from './payment-record';
import { canTransition, type PaymentStatus } from './states';

export interface ProcessPaymentJob {
  paymentToken: string;
  merchantId: string;
  /** authorize: after sendPayment; capture: a pre-authorisation's capture; cancel: its void (by request or TTL). */
  step: 'authorize' | 'capture' | 'cancel';
  authentication?: { cavv: string; eci: string; version: string; dstrans_id: string; xid?: string | undefined } | undefined;
  /** For cancel: the status to end in (CANCELED for a request or an expired pre-authorisation). */
  reason?: 'REQUESTED' | 'TTL';
}

/**
 * The processor side of a payment, run by the job worker. Each step first asks the processor whether
 * it already knows the operation's reference (a previous attempt may have timed out after the
 * processor acted), and only otherwise sends it. An unreachable or silent processor leaves the
 * payment PROCESSING and the job retries with backoff: the outcome is settled from the processor's
 * own answer, never guessed.
 */
export function processPaymentHandler(ctx: AppContext) {
  return async (job: Job<ProcessPaymentJob>): Promise<void> => {
    const { paymentToken, merchantId, step } = job.payload;
    // One authorisation per payment; captures and cancels may be requested again after a refusal, so
    // theirs carry the job's id: stable across the job's retries, new for each request.
    const reference = step === 'authorize' ? `${paymentToken}:authorize` : `${paymentToken}:${step}:${job.id}`;
    const payment = await ctx.db.selectFrom('payments').selectAll().where('payment_token', '=', paymentToken).executeTakeFirst();
    if (!payment || payment.status !== 'PROCESSING') return; // settled by an earlier attempt

    let result: OperationResult | null;
    try {
      // A first attempt cannot have reached the processor before; later ones ask it first.
      const known = job.attempts > 1 ? await ctx.processor.status(merchantId, reference) : null;
      result = known ?? (await send(ctx, payment, job.payload, reference));
    } catch (error) {
      if (error instanceof ProcessorUnavailableError || error instanceof ProcessorTimeoutError) {
        throw new RetryLater(error.message, backoffMs(job.attempts));
      }
      throw error;
    }
    await settle(ctx, payment, job.payload, result);
  };
}

async function send(ctx: AppContext, payment: PaymentRow, job: ProcessPaymentJob, reference: string): Promise<OperationResult> {
  const base = { merchantId: payment.merchant_id, reference };
  if (job.step === 'authorize') {
    const card = payment.card_id ? await findCard(ctx.db, payment.merchant_id, payment.card_id) : undefined;
    if (!card) return { status: 'ERROR', code: 'CARD_MISSING', description: 'The card of this payment no longer exists' };
    const auth = job.authentication;
    return ctx.processor.authorize({
      ...base,
      card: processorCard(ctx.cardCipher, card),
      amountMinor: payment.amount_minor + payment.customer_fees_minor,
      currency: payment.currency,
      installments: payment.installments,
      capture: !payment.delay_capture,
      softDescriptor: payment.soft_descriptor ?? undefined,
      authentication: auth ? { eci: auth.eci, cavv: auth.cavv, version: auth.version, dsTransId: auth.dstrans_id } : undefined,
    });
  }
  const followUp = { ...base, processorId: payment.processor_id ?? '', amountMinor: payment.pending_capture_minor ?? 0n };
  return job.step === 'capture' ? ctx.processor.capture(followUp) : ctx.processor.cancel(followUp);
}

/** Applies the processor's answer in one transaction, under the payment's row lock. */
async function settle(ctx: AppContext, seen: PaymentRow, job: ProcessPaymentJob, result: OperationResult): Promise<void> {
  const now = await merchantNow(ctx.db, seen.merchant_id);
  await ctx.db.transaction().execute(async (trx) => {
    const payment = await lockPayment(trx, seen.merchant_id, seen.payment_token);
    if (!payment || payment.status !== 'PROCESSING') return;
    const failed = (status: PaymentStatus) =>
      result.status !== 'APPROVED' && canTransition(payment.status, status)
        ? changeStatus(trx, payment, status, now, { error_code: result.code, error_description: result.description })
        : undefined;

    if (job.step === 'authorize') {
      if (result.status === 'DECLINED') return void (await failed('DECLINED'));
      if (result.status === 'ERROR') return void (await failed('ERROR'));
      if (payment.delay_capture) {
        const held = await changeStatus(trx, payment, 'PRE_AUTHORIZED', now, { processor_id: result.processorId, authorized_minor: payment.amount_minor });
        await postHold(trx, held, now, 1n, 'authorization');
        return;
      }
      const paid = await changeStatus(trx, payment, 'PAID', now, {
        processor_id: result.processorId,
        authorized_minor: payment.amount_minor,
        captured_minor: payment.amount_minor,
      });
      await postCapture(trx, paid, now);
      return;
    }

    if (job.step === 'capture') {
      if (result.status !== 'APPROVED') {
        // A refused capture leaves the authorisation as it was, to be captured again or to expire.
        await changeStatus(trx, payment, 'PRE_AUTHORIZED', now, { pending_capture_minor: null, error_code: result.code, error_description: result.description });
        return;
      }
      const captured = payment.pending_capture_minor ?? payment.authorized_minor;
      const fees = recomputeFees(payment, captured);
      await postHold(trx, payment, now, -1n, 'release');
      await trx.deleteFrom('payment_fees').where('payment_token', '=', payment.payment_token).execute();
      if (fees.fees.length > 0) {
        await trx
          .insertInto('payment_fees')
          .values(fees.fees.map((f) => ({ payment_token: payment.payment_token, fee_type: f.type, payer: f.payer, amount_minor: f.amountMinor, currency: payment.currency })))
          .execute();
      }
      const paid = await changeStatus(trx, payment, 'PAID', now, {
        captured_minor: captured,
        pending_capture_minor: null,
        customer_fees_minor: fees.customerFeesMinor,
        merchant_fees_minor: fees.merchantFeesMinor,
      });
      await postCapture(trx, paid, now);
      return;
    }

    // cancel: a void the processor refused leaves the authorisation standing (the TTL sweep retries).
    if (result.status !== 'APPROVED') {
      await changeStatus(trx, payment, 'PRE_AUTHORIZED', now, { error_code: result.code, error_description: result.description });
      return;
    }
    await postHold(trx, payment, now, -1n, 'release');
    await changeStatus(trx, payment, 'CANCELED', now, { pending_capture_minor: null });
  });
  ctx.workerSignal.poke();
}

/** Fees of a partial capture: the payment's own fee rules (kept when it was created) on the captured amount. */
function recomputeFees(payment: PaymentRow, capturedMinor: bigint) {
  const rules = payment.fee_rules as Pick<FeePlan, 'payments' | 'installment_interest_ppm'>;
  return computeFees(rules.payments, capturedMinor, { installments: payment.installments, installmentInterestPpm: rules.installment_interest_ppm });
}
