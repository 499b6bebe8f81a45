import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Config } from '../config';
import { assertSandboxOnly } from '../connectors/live-mode';
import type { Db } from '../db/database';
import { batchCalls } from '../lib/batch';
import { jsonParameter } from '../lib/json';
import {
  ProcessorTimeoutError,
  ProcessorUnavailableError,
  type AuthorizeInput,
  type FollowUpInput,
  type OperationResult,
  type PayoutInput,
  type Processor,
  type ProcessorOperation,
  type VerifyCardInput,
} from './processor';

/** The contract's simulator test cards and what they do (docs/payments.md lists them). */
export const TEST_CARD_OUTCOMES: Readonly<Record<string, OperationResult>> = {
  '4000000000000002': { status: 'DECLINED', code: '51', description: 'Insufficient funds' },
  '4000000000000069': { status: 'DECLINED', code: '54', description: 'Expired card' },
  '4000000000000119': { status: 'ERROR', code: '96', description: 'Processor system malfunction' },
};
/** Fails `/checkout/card` verification as a wrong CVV would. */
export const CVV_FAILURE_CARD = '4000000000000127';

/**
 * Payout account numbers ending in these digits are rejected by the simulated bank, so merchants can
 * test their rejection handling (docs/payouts.md).
 */
export const PAYOUT_REJECT_SUFFIX = '0000';

/** Refunds whose amount ends in this many cents (e.g. 10.13) are rejected, to exercise FAILED refunds. */
export const REFUND_DECLINE_CENTS = 13n;

export type SandboxFault = 'UNAVAILABLE' | 'TIMEOUT';

/**
 * The sandbox processor: a real implementation of the processor contract with its own books (the
 * `sandbox_operations` table), so an operation's outcome survives restarts and can be queried by
 * reference, like a real acquirer's. Outcomes are decided by the card number (the contract's test
 * cards) and are deterministic. Latency is configurable, and faults can be injected per merchant and
 * operation through `/sandbox/processor/faults`.
 */
export class SandboxSimulator implements Processor {
  readonly id = 'sandbox';

  constructor(
    private readonly db: Db,
    private readonly delayMs: number,
    config: Pick<Config, 'mode'>,
  ) {
    assertSandboxOnly(config, 'The sandbox processor simulator');
  }

  async verifyCard(input: VerifyCardInput): Promise<OperationResult> {
    return this.operate(input.merchantId, 'verifyCard', input.reference, () =>
      input.card.number === CVV_FAILURE_CARD
        ? { status: 'DECLINED', code: 'N7', description: 'CVV verification failed' }
        : approved(),
    );
  }

  async authorize(input: AuthorizeInput): Promise<OperationResult> {
    return this.operate(input.merchantId, 'authorize', input.reference, () => TEST_CARD_OUTCOMES[input.card.number] ?? approved());
  }

  async capture(input: FollowUpInput): Promise<OperationResult> {
    return this.operate(input.merchantId, 'capture', input.reference, () => approved());
  }

  async cancel(input: FollowUpInput): Promise<OperationResult> {
    return this.operate(input.merchantId, 'cancel', input.reference, () => approved());
  }

  async refund(input: FollowUpInput): Promise<OperationResult> {
    return this.operate(input.merchantId, 'refund', input.reference, () =>
      input.amountMinor % 100n === REFUND_DECLINE_CENTS
        ? { status: 'DECLINED', code: 'REFUND_REJECTED', description: 'The payer institution rejected the refund' }
        : approved(),
    );
  }

  async payout(input: PayoutInput): Promise<OperationResult> {
    return this.operate(input.merchantId, 'payout', input.reference, () =>
      input.accountNumber.endsWith(PAYOUT_REJECT_SUFFIX)
        ? { status: 'DECLINED', code: 'ACCOUNT_CLOSED', description: 'The recipient account is closed or does not exist' }
        : approved(),
    );
  }

  /**
   * The outcome on record for a reference. A processor that is down answers no status queries either:
   * faults injected for `status` apply here (UNAVAILABLE and TIMEOUT both leave the outcome unknown).
   */
  async status(merchantId: string, reference: string): Promise<OperationResult | null> {
    const fault = await this.db
      .updateTable('sandbox_faults')
      .set((eb) => ({ remaining: eb('remaining', '-', 1) }))
      .where('merchant_id', '=', merchantId)
      .where('operation', '=', 'status')
      .where('remaining', '>', 0)
      .returning('fault')
      .executeTakeFirst();
    if (fault?.fault === 'UNAVAILABLE') throw new ProcessorUnavailableError('status');
    if (fault?.fault === 'TIMEOUT') throw new ProcessorTimeoutError('status');
    return this.lookup(merchantId, reference);
  }

  private async lookup(merchantId: string, reference: string): Promise<OperationResult | null> {
    const row = await this.db
      .selectFrom('sandbox_operations')
      .select('result')
      .where('reference', '=', reference)
      .where('merchant_id', '=', merchantId)
      .executeTakeFirst();
    return row ? (row.result as OperationResult) : null;
  }

  /**
   * Runs one operation: waits the simulated latency, applies an injected fault, and records the
   * result under its reference (a repeated reference answers the recorded result). Every card payment
   * passes here, so the operations of one turn of the event loop are recorded together (record).
   */
  private async operate(merchantId: string, operation: ProcessorOperation, reference: string, decide: () => OperationResult): Promise<OperationResult> {
    if (this.delayMs > 0) await sleep(this.delayMs);
    const { fault, result: known } = await this.record({ merchantId, operation, reference, decided: decide() });
    if (fault === 'UNAVAILABLE') throw new ProcessorUnavailableError(operation);
    // Recorded by a concurrent statement after this one's snapshot: read it now.
    const result = known ?? (await this.lookup(merchantId, reference));
    if (!result) throw new Error(`sandbox operation ${reference} belongs to another merchant`);
    // A timeout happens after the processor acted: the operation is recorded, the answer is lost.
    if (fault === 'TIMEOUT') throw new ProcessorTimeoutError(operation);
    return result;
  }

  private readonly record = batchCalls((operations: readonly SimulatedOperation[]) => this.recordMany(operations));

  /**
   * Takes the injected faults and records the decisions of many operations in one statement. Each
   * operation takes one use of its merchant's fault for its kind of operation while any remain (in
   * the order given; fault rows are locked in key order, so concurrent batches never deadlock). An
   * UNAVAILABLE processor records nothing; otherwise the decision is recorded unless the reference is
   * already known, and either way the answer is what is on record. (The reference list lets the
   * planner look the records up by key whatever it guesses of the JSON's size.)
   */
  private async recordMany(operations: readonly SimulatedOperation[]): Promise<{ fault: SandboxFault | null; result: OperationResult | null }[]> {
    const ops = operations.map((op, n) => ({ n, reference: op.reference, merchant_id: op.merchantId, operation: op.operation, result: op.decided }));
    const { rows } = await sql<{ n: number; fault: SandboxFault | null; result: OperationResult | null }>`
      with ops as (
        select * from jsonb_to_recordset(${jsonParameter(ops)}::jsonb) as o(n integer, reference text, merchant_id uuid, operation text, result jsonb)
      ),
      wanted as (select merchant_id, operation, count(*)::integer as calls from ops group by merchant_id, operation),
      held as (
        select f.merchant_id, f.operation, f.remaining from sandbox_faults as f
        join wanted as w on w.merchant_id = f.merchant_id and w.operation = f.operation
        where f.remaining > 0
        order by f.merchant_id, f.operation
        for update of f
      ),
      taken as (
        update sandbox_faults as f set remaining = h.remaining - least(h.remaining, w.calls)
        from held as h join wanted as w on w.merchant_id = h.merchant_id and w.operation = h.operation
        where f.merchant_id = h.merchant_id and f.operation = h.operation
        returning f.merchant_id, f.operation, f.fault, least(h.remaining, w.calls) as uses
      ),
      faulted as (
        select o.n, t.fault
        from (select *, row_number() over (partition by merchant_id, operation order by n) as turn from ops) as o
        join taken as t on t.merchant_id = o.merchant_id and t.operation = o.operation
        where o.turn <= t.uses
      ),
      recorded as (
        insert into sandbox_operations (reference, merchant_id, operation, result)
        select o.reference, o.merchant_id, o.operation, o.result from ops as o
        where not exists (select 1 from faulted as f where f.n = o.n and f.fault = 'UNAVAILABLE')
        order by o.n
        on conflict (reference) do nothing
        returning reference, result
      )
      select o.n, f.fault, coalesce(r.result, known.result) as result
      from ops as o
      left join faulted as f on f.n = o.n
      left join recorded as r on r.reference = o.reference
      left join sandbox_operations as known
        on known.reference = o.reference and known.merchant_id = o.merchant_id and known.reference = any(${ops.map((op) => op.reference)}::text[])`.execute(this.db);
    const byN = new Map(rows.map((row) => [row.n, row]));
    return operations.map((_, n) => ({ fault: byN.get(n)?.fault ?? null, result: byN.get(n)?.result ?? null }));
  }
}

interface SimulatedOperation {
  merchantId: string;
  operation: ProcessorOperation;
  reference: string;
  decided: OperationResult;
}

function approved(): OperationResult {
  return { status: 'APPROVED', processorId: `sim_${randomUUID()}` };
}
