import { sql } from 'kysely';
import { clockAt } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { computeFees, type PaymentFeeRules } from '../fees/fee-plan';
import { backoffMs, RetryLater, type Job, type JobKind } from '../jobs/queue';
import { batchCalls } from '../lib/batch';
import { attemptOutcome, type OperationResult } from '../processor/processor';
import { processorCard, type CardRow } from '../vault/lookup';
import { captureJournal, changeStatus, changeStatuses, holdJournal, lockPayment, type PaymentRow, type StatusChange } from './payment-record';
import { canTransition, type PaymentStatus } from './states';

/** The job kind of every processor step of a card payment (authorise, capture, cancel). */
export const PROCESS_PAYMENT_JOB = 'payment.process';

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
  // The jobs of one claimed batch run together: their reads and their settlements share statements.
  const load = batchCalls((tokens: readonly string[]) => loadForProcessing(ctx.db, tokens));
  const settleIf = batchCalls((changes: readonly StatusChange[]) => changeStatuses(ctx.db, changes));
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
  const settleIf = (change: StatusChange) => changeStatuses(ctx.db, [change]).then(([row]) => row);
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

type ProcessorCardRow = Pick<CardRow, 'key_id' | 'number_ciphertext' | 'exp_month' | 'exp_year' | 'holder_name' | 'scheme'>;

interface LoadedForProcessing {
  payment: PaymentRow;
  card: ProcessorCardRow | undefined;
  clockOffsetMs: bigint;
}

/** Payments with their merchant's clock and their card (the merchant's own only), in one round trip; undefined where gone. */
async function loadForProcessing(db: Db, paymentTokens: readonly string[]): Promise<(LoadedForProcessing | undefined)[]> {
  const rows = await db
    .selectFrom('payments as p')
    .innerJoin('merchants as m', 'm.id', 'p.merchant_id')
    .leftJoin('cards as c', (join) => join.onRef('c.id', '=', 'p.card_id').onRef('c.merchant_id', '=', 'p.merchant_id'))
    .selectAll('p')
    .select([
      'm.clock_offset_ms as __clock_offset_ms',
      'c.key_id as __card_key_id',
      'c.number_ciphertext as __card_number_ciphertext',
      'c.exp_month as __card_exp_month',
      'c.exp_year as __card_exp_year',
      'c.holder_name as __card_holder_name',
      'c.scheme as __card_scheme',
    ])
    .where(sql<boolean>`p.payment_token = any(${[...paymentTokens]}::uuid[])`)
    .execute();
  const loaded = new Map<string, LoadedForProcessing>();
  for (const row of rows) {
    const {
      __clock_offset_ms: clockOffsetMs,
      __card_key_id: keyId,
      __card_number_ciphertext: numberCiphertext,
      __card_exp_month: expMonth,
      __card_exp_year: expYear,
      __card_holder_name: holderName,
      __card_scheme: scheme,
      ...payment
    } = row;
    const card: ProcessorCardRow | undefined =
      keyId !== null && numberCiphertext !== null && expMonth !== null && expYear !== null && holderName !== null && scheme !== null
        ? { key_id: keyId, number_ciphertext: numberCiphertext, exp_month: expMonth, exp_year: expYear, holder_name: holderName, scheme }
        : undefined;
    loaded.set(payment.payment_token, { payment: payment as PaymentRow, card, clockOffsetMs });
  }
  return paymentTokens.map((token) => loaded.get(token));
}

async function send(ctx: AppContext, payment: PaymentRow, card: ProcessorCardRow | undefined, job: ProcessPaymentJob, reference: string): Promise<OperationResult> {
  const base = { merchantId: payment.merchant_id, reference, method: payment.method as 'CREDITCARD' | 'DEBITCARD', currency: payment.currency };
  if (job.step === 'authorize') {
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

/**
 * Applies the processor's answer. An authorisation's outcome is a status change that applies only if
 * the payment is still PROCESSING (no lock), written by `settleIf` in one statement with the outcomes
 * of the other jobs of its batch (the sendPayment hot path); a capture, which also rewrites the fees,
 * and a cancel run in a transaction under the payment's row lock.
 */
async function settle(
  ctx: AppContext,
  settleIf: (change: StatusChange) => Promise<PaymentRow | undefined>,
  seen: PaymentRow,
  job: ProcessPaymentJob,
  result: OperationResult,
  now: Date,
): Promise<void> {
  if (job.step === 'authorize') {
    const change = (status: PaymentStatus, patch: Partial<PaymentRow>, journals?: StatusChange['journals']) =>
      settleIf({ payment: seen, from: 'PROCESSING', status, at: now, patch, journals });
    if (result.status !== 'APPROVED') {
      const status = result.status === 'DECLINED' ? 'DECLINED' : 'ERROR';
      if (canTransition('PROCESSING', status)) await change(status, { error_code: result.code, error_description: result.description });
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
          .values(fees.fees.map((f) => ({ payment_token: payment.payment_token, fee_type: f.type, payer: f.payer, amount_minor: f.amountMinor, currency: payment.currency })))
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
