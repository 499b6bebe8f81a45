import type { Db } from '../db/database';
import type { ProcessorOperation } from '../processor/processor';

export type SandboxFault = 'UNAVAILABLE' | 'TIMEOUT';

/**
 * Makes the next `times` calls of `operation` for this merchant fail in the sandbox simulator;
 * `times: 0` clears the fault. Shared by `POST /sandbox/processor/faults` and the dashboard.
 * @example await setProcessorFault(db, merchantId, 'authorize', 'TIMEOUT', 2);
 */
export async function setProcessorFault(db: Db, merchantId: string, operation: ProcessorOperation, fault: SandboxFault, times: number) {
  await db
    .insertInto('sandbox_faults')
    .values({ merchant_id: merchantId, operation, fault, remaining: times })
    .onConflict((oc) => oc.columns(['merchant_id', 'operation']).doUpdateSet({ fault, remaining: times }))
    .execute();
  return { operation, fault, remaining: times };
}
