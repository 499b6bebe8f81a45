import { Histogram } from 'prom-client';
import { processRegistry } from '../metrics/process-registry';
import { ProcessorTimeoutError, ProcessorUnavailableError, type OperationResult, type Processor } from './processor';

const duration = new Histogram({
  name: 'colibri_processor_request_duration_seconds',
  help: 'Processor calls by operation and outcome (approved, declined, error, unavailable, timeout, failed, found, not_found)',
  labelNames: ['operation', 'outcome'],
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [processRegistry],
});

function outcomeOf(result: OperationResult): string {
  return result.status.toLowerCase();
}

function outcomeOfError(error: unknown): string {
  if (error instanceof ProcessorTimeoutError) return 'timeout';
  if (error instanceof ProcessorUnavailableError) return 'unavailable';
  return 'failed';
}

async function timed<T>(operation: string, call: () => Promise<T>, outcome: (result: T) => string): Promise<T> {
  const end = duration.startTimer({ operation });
  try {
    const result = await call();
    end({ outcome: outcome(result) });
    return result;
  } catch (error) {
    end({ outcome: outcomeOfError(error) });
    throw error;
  }
}

/**
 * The processor contract with a latency histogram around every call: the same answers and errors, with
 * `colibri_processor_request_duration_seconds` observed per operation and outcome. Wrapping the contract
 * (not a given processor) measures the simulator and any live adapter alike.
 * @example const processor = instrumentProcessor(new SandboxSimulator(db, 200));
 */
export function instrumentProcessor(inner: Processor): Processor {
  return {
    verifyCard: (input) => timed('verifyCard', () => inner.verifyCard(input), outcomeOf),
    authorize: (input) => timed('authorize', () => inner.authorize(input), outcomeOf),
    capture: (input) => timed('capture', () => inner.capture(input), outcomeOf),
    cancel: (input) => timed('cancel', () => inner.cancel(input), outcomeOf),
    refund: (input) => timed('refund', () => inner.refund(input), outcomeOf),
    payout: (input) => timed('payout', () => inner.payout(input), outcomeOf),
    status: (merchantId, reference, method) => timed('status', () => inner.status(merchantId, reference, method), (r) => (r === null ? 'not_found' : 'found')),
  };
}
