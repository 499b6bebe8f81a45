import { clockAt } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { backoffMs, RetryLater, type Job, type JobKind } from '../jobs/queue';
import { askThenSend, attemptOutcome, type OperationResult } from '../processor/processor';
import { processorCard } from '../vault/lookup';
import { applyOutcomes, loadOperations, outcomeStatements, type LoadedOperation } from './apply-outcome';
import type { ProcessPaymentJob } from './payment-job';

/**
 * The processor side of a card payment, run by the job worker: one job per operation
 * (payments/operations.ts). The job reads its operation and does nothing if it is no longer REQUESTED
 * (an earlier run applied its answer). Otherwise it first asks the processor whether it already knows
 * the operation's reference (a previous attempt may have timed out after the processor acted), and
 * only otherwise sends it. An unreachable or silent processor leaves the operation REQUESTED and the job
 * retries with backoff: the outcome is settled from the processor's own answer, never guessed, and
 * applied by applyOutcomes (apply-outcome.ts), guarded on the operation.
 */
export function processPaymentHandler(ctx: AppContext) {
  // The jobs in flight run together: the reads and the settlements of one turn share statements.
  const { load, apply } = outcomeStatements(ctx.db);
  return async (job: Job<ProcessPaymentJob>): Promise<void> => {
    const loaded = await load(job.payload.operationId);
    if (!loaded || loaded.operation.status !== 'REQUESTED') return; // settled by an earlier run
    const { operation, payment } = loaded;
    let result: OperationResult | null;
    try {
      // A first attempt cannot have reached the processor before; later ones ask it first.
      const ask = () => ctx.processor.status(operation.merchant_id, operation.reference, payment.method as 'CREDITCARD' | 'DEBITCARD');
      result = await askThenSend(job.attempts > 1, ask, () => send(ctx, loaded, job.payload));
    } catch (error) {
      const outcome = attemptOutcome(error);
      if (outcome) throw new RetryLater((error as Error).message, backoffMs(job.attempts), outcome);
      throw error;
    }
    await apply({ operation, payment, result, at: clockAt(loaded.clockOffsetMs) });
    ctx.workerSignal.poke();
  };
}

/**
 * The card payment job kind. An operation that never reached the processor by its deadline is settled
 * as the processor's own error would be (FAILED, code `PROCESSOR_UNAVAILABLE`): an authorisation ends
 * ERROR, a capture or a cancel leaves the pre-authorisation standing.
 */
export function processPaymentJob(ctx: AppContext): JobKind {
  return {
    run: processPaymentHandler(ctx),
    abandon: async (job: Job<ProcessPaymentJob>, reason: string) => {
      const [loaded] = await loadOperations(ctx.db, [job.payload.operationId]);
      if (!loaded || loaded.operation.status !== 'REQUESTED') return;
      const result: OperationResult = { status: 'ERROR', code: 'PROCESSOR_UNAVAILABLE', description: `The processor could not be reached before the deadline; nothing was charged (${reason}).` };
      await applyOutcomes(ctx.db, [{ operation: loaded.operation, payment: loaded.payment, result, at: clockAt(loaded.clockOffsetMs) }]);
      ctx.workerSignal.poke();
    },
  };
}

async function send(ctx: AppContext, { operation, payment, card }: LoadedOperation, job: ProcessPaymentJob): Promise<OperationResult> {
  const base = { merchantId: operation.merchant_id, reference: operation.reference, method: payment.method as 'CREDITCARD' | 'DEBITCARD', currency: payment.currency };
  if (operation.kind === 'authorize') {
    if (!card) return { status: 'ERROR', code: 'CARD_MISSING', description: 'The card of this payment no longer exists' };
    const auth = job.authentication;
    return ctx.processor.authorize({
      ...base,
      card: processorCard(ctx.secretBox, card),
      amountMinor: operation.amount_minor,
      installments: payment.installments,
      capture: !payment.delay_capture,
      softDescriptor: payment.soft_descriptor ?? undefined,
      authentication: auth ? { eci: auth.eci, cavv: auth.cavv, version: auth.version, dsTransId: auth.dstrans_id } : undefined,
    });
  }
  const followUp = { ...base, processorId: payment.processor_id ?? '', amountMinor: operation.amount_minor };
  return operation.kind === 'capture' ? ctx.processor.capture(followUp) : ctx.processor.cancel(followUp);
}
