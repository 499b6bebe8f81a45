import { clockAt } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { computeFees, type PaymentFeeRules } from '../fees/fee-plan';
import { backoffMs, RetryLater, type Job, type JobKind } from '../jobs/queue';
import { attemptOutcome, type OperationResult } from '../processor/processor';
import { processorCard } from '../vault/lookup';
import { authorizationStatements, loadForProcessing, settleAuthorizations, type AuthorizationOutcome, type AuthorizationPatch, type ProcessorCardRow } from './hot-path';
import { captureJournal, changeStatus, holdJournal, lockPayment, type PaymentRow, type StatusJournals } from './payment-record';
import type { ProcessPaymentJob } from './payment-job';

/**
 * The processor side of a payment, run by the job worker. Each step first asks the processor whether
 * it already knows the operation's reference (a previous attempt may have timed out after the
 * processor acted), and only otherwise sends it. An unreachable or silent processor leaves the
 * payment PROCESSING and the job retries with backoff: the outcome is settled from the processor's
 * own answer, never guessed.
 */
export function processPaymentHandler(ctx: AppContext) {
  // The jobs in flight run together: the reads and the settlements of one turn share statements (hot-path.ts).
  const { load, settle: settleIf } = authorizationStatements(ctx.db);
  return async (job: Job<ProcessPaymentJob>): Promise<void> => {
    const { paymentToken, merchantId, step } = job.payload;
    // One authorisation per payment; captures and cancels may be requested again after a refusal, so
    // theirs carry the job's id: stable across the job's retries, new for each request.
    const reference = step === 'authorize' ? `${paymentToken}:authorize` : `${paymentToken}:${step}:${job.id}`;
    const loaded = await load(paymentToken);
    if (!loaded || loaded.payment.status !== 'PROCESSING') return; // settled by an earlier attempt
    const { payment, card, clockOffsetMs } = loaded;

    let result: OperationResult | null;
    try {
      // A first attempt cannot have reached the processor before; later ones ask it first.
      const known = job.attempts > 1 ? await ctx.processor.status(merchantId, reference, loaded.payment.method as 'CREDITCARD' | 'DEBITCARD') : null;
      result = known ?? (await send(ctx, payment, card, job.payload, reference));
    } catch (error) {
      const outcome = attemptOutcome(error);
      if (outcome) throw new RetryLater((error as Error).message, backoffMs(job.attempts), outcome);
      throw error;
    }
    await settle(ctx, settleIf, payment, job.payload, result, clockAt(clockOffsetMs));
    ctx.workerSignal.poke();
  };
}

/**
 * The card payment job kind. A step that never reached the processor by its deadline is settled as
 * the processor's own error would be: an authorisation ends ERROR, a capture or a cancel leaves the
 * pre-authorisation standing, each with code `PROCESSOR_UNAVAILABLE`.
 */
export function processPaymentJob(ctx: AppContext): JobKind {
  const run = processPaymentHandler(ctx);
  const settleIf = (outcome: AuthorizationOutcome) => settleAuthorizations(ctx.db, [outcome]).then(([row]) => row);
  return {
    run,
    abandon: async (job: Job<ProcessPaymentJob>, reason: string) => {
      const [loaded] = await loadForProcessing(ctx.db, [job.payload.paymentToken]);
      if (!loaded || loaded.payment.status !== 'PROCESSING') return;
      const result: OperationResult = { status: 'ERROR', code: 'PROCESSOR_UNAVAILABLE', description: `The processor could not be reached before the deadline; nothing was charged (${reason}).` };
      await settle(ctx, settleIf, loaded.payment, job.payload, result, clockAt(loaded.clockOffsetMs));
      ctx.workerSignal.poke();
    },
  };
}

async function send(ctx: AppContext, payment: PaymentRow, card: ProcessorCardRow | undefined, job: ProcessPaymentJob, reference: string): Promise<OperationResult> {
  const base = { merchantId: payment.merchant_id, reference, method: payment.method as 'CREDITCARD' | 'DEBITCARD', currency: payment.currency };
  if (job.step === 'authorize') {
    if (!card) return { status: 'ERROR', code: 'CARD_MISSING', description: 'The card of this payment no longer exists' };
    const auth = job.authentication;
    return ctx.processor.authorize({
      ...base,
      card: processorCard(ctx.secretBox, card),
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

/**
 * Applies the processor's answer. An authorisation's outcome is a status change that applies only if
 * the payment is still PROCESSING (no lock), written by `settleIf` in one statement with the outcomes
 * of the other jobs of its turn (hot-path.ts); a capture, which also rewrites the fees, and a cancel
 * run in a transaction under the payment's row lock, as plain status changes.
 */
async function settle(
  ctx: AppContext,
  settleIf: (outcome: AuthorizationOutcome) => Promise<PaymentRow | undefined>,
  seen: PaymentRow,
  job: ProcessPaymentJob,
  result: OperationResult,
  now: Date,
): Promise<void> {
  if (job.step === 'authorize') {
    const change = (status: AuthorizationOutcome['status'], patch: AuthorizationPatch, journals?: StatusJournals) => settleIf({ payment: seen, status, at: now, patch, journals });
    if (result.status !== 'APPROVED') {
      await change(result.status === 'DECLINED' ? 'DECLINED' : 'ERROR', { error_code: result.code, error_description: result.description });
      return;
    }
    if (seen.delay_capture) {
      await change('PRE_AUTHORIZED', { processor_id: result.processorId, authorized_minor: seen.amount_minor }, (held) => [holdJournal(held, now, 1n, 'authorization')]);
      return;
    }
    const paid = { processor_id: result.processorId, authorized_minor: seen.amount_minor, captured_minor: seen.amount_minor };
    await change('PAID', paid, (row) => [captureJournal(row, now)]);
    return;
  }

  await ctx.db.transaction().execute(async (trx) => {
    const payment = await lockPayment(trx, seen.merchant_id, seen.payment_token);
    if (!payment || payment.status !== 'PROCESSING') return;
    if (job.step === 'capture') {
      if (result.status !== 'APPROVED') {
        // A refused capture leaves the authorisation as it was, to be captured again or to expire.
        await changeStatus(trx, payment, 'PRE_AUTHORIZED', now, { pending_capture_minor: null, error_code: result.code, error_description: result.description });
        return;
      }
      const captured = payment.pending_capture_minor ?? payment.authorized_minor;
      const fees = recomputeFees(payment, captured);
      await trx.deleteFrom('payment_fees').where('payment_token', '=', payment.payment_token).execute();
      if (fees.fees.length > 0) {
        await trx
          .insertInto('payment_fees')
          .values(fees.fees.map((f) => ({ payment_token: payment.payment_token, merchant_id: payment.merchant_id, fee_type: f.type, payer: f.payer, amount_minor: f.amountMinor, currency: payment.currency })))
          .execute();
      }
      const patch = { captured_minor: captured, pending_capture_minor: null, customer_fees_minor: fees.customerFeesMinor, merchant_fees_minor: fees.merchantFeesMinor };
      // The hold released is what was held: the amount with the fees as they were before the capture.
      await changeStatus(trx, payment, 'PAID', now, patch, (paid) => [holdJournal(payment, now, -1n, 'release'), captureJournal(paid, now)]);
      return;
    }
    // cancel: a void the processor refused leaves the authorisation standing (the TTL sweep retries).
    if (result.status !== 'APPROVED') {
      await changeStatus(trx, payment, 'PRE_AUTHORIZED', now, { error_code: result.code, error_description: result.description });
      return;
    }
    await changeStatus(trx, payment, 'CANCELED', now, { pending_capture_minor: null }, () => [holdJournal(payment, now, -1n, 'release')]);
  });
}

/** Fees of a partial capture: the payment's own fee rules (kept when it was created) on the captured amount. */
function recomputeFees(payment: PaymentRow, capturedMinor: bigint) {
  const rules = payment.fee_rules as PaymentFeeRules;
  return computeFees(rules.payments, capturedMinor, { installments: payment.installments, installmentInterestPpm: rules.installment_interest_ppm });
}
