import { eciOutcome } from './eci';
import { declined } from './outcome-codes';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type RawBuilder } from 'kysely';
import type { Config } from '../config';
import { assertSandboxOnly } from './live-mode';
import type { Db } from '../db/database';
import { batchCalls } from '../lib/batch';
import { jsonParameter, jsonRows } from '../lib/json';
import {
  ProcessorTimeoutError,
  ProcessorUnavailableError,
  type AuthorizeInput,
  type FollowUpInput,
  type OperationResult,
  type PayoutInput,
  type Processor,
  type ProcessorOperation,
  type SettlementDestination,
  type SettlementPayer,
  type SettlementTransferInput,
  type VerifyCardInput,
} from './processor';
import { translateSandboxCode, type SandboxDeclineCode } from './sandbox-codes';

/**
 * The contract's simulator test cards that the simulated acquirer refuses, with its ISO 8583 response
 * code (docs/payments.md lists them; sandbox-codes.ts translates the codes).
 */
export const TEST_CARD_DECLINES: Readonly<Record<string, SandboxDeclineCode>> = {
  '4000000000000002': '51',
  '4000000000000069': '54',
  '4000000000000119': '96',
};
/** Fails `/checkout/card` verification as a wrong CVV would. */
export const CVV_FAILURE_CARD = '4000000000000127';

/**
 * Payout account numbers ending in these digits are rejected by the simulated bank, so merchants can
 * test their rejection handling (docs/payouts.md). So are settlements to a destination whose PIX key, account
 * number or CLABE ends in them (docs/balance-and-settlements.md, "Settlements").
 */
export const PAYOUT_REJECT_SUFFIX = '0000';

/** Refunds whose amount ends in this many cents (e.g. 10.13) are rejected, to exercise FAILED refunds. */
export const REFUND_DECLINE_CENTS = 13n;

export type SandboxFault = 'UNAVAILABLE' | 'TIMEOUT';

/**
 * The sandbox processor: a real implementation of the processor contract with its own books (the
 * `sandbox_operations` table), so an operation's outcome survives restarts and can be queried by
 * reference, like a real acquirer's. Outcomes are decided by the card number (the contract's test
 * cards) and are deterministic. The simulated acquirer and banks refuse in their own codes, which are
 * translated into Colibri's (sandbox-codes.ts) before they are recorded or returned. Latency is configurable, and faults can be injected per merchant and
 * operation through `/sandbox/processor/faults`.
 */
export class SandboxSimulator implements Processor, SettlementPayer {
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
      input.card.number === CVV_FAILURE_CARD ? refused('N7') : approved(),
    );
  }

  async authorize(input: AuthorizeInput): Promise<OperationResult> {
    // A sale (authorised and captured at once) settles its amount; a pre-authorisation settles nothing yet.
    const settles = input.capture ? { amountMinor: input.amountMinor, currency: input.currency } : undefined;
    return this.operate(
      input.merchantId,
      'authorize',
      input.reference,
      () => {
        // As an acquirer reads 3DS data: a debit whose ECI says the cardholder was not authenticated is
        // refused; an authenticated or attempted one goes on to the card's own outcome (processor/eci.ts).
        if (input.method === 'DEBITCARD' && input.authentication && eciOutcome(input.authentication.eci) === 'NOT_AUTHENTICATED') return declined('NOT_AUTHENTICATED');
        const code = TEST_CARD_DECLINES[input.card.number];
        return code ? refused(code) : approved();
      },
      settles,
    );
  }

  async capture(input: FollowUpInput): Promise<OperationResult> {
    return this.operate(input.merchantId, 'capture', input.reference, () => approved(), { amountMinor: input.amountMinor, currency: input.currency ?? 'BRL' });
  }

  async cancel(input: FollowUpInput): Promise<OperationResult> {
    return this.operate(input.merchantId, 'cancel', input.reference, () => approved());
  }

  async refund(input: FollowUpInput): Promise<OperationResult> {
    return this.operate(
      input.merchantId,
      'refund',
      input.reference,
      () => (input.amountMinor % 100n === REFUND_DECLINE_CENTS ? refused('MS03') : approved()),
      { amountMinor: input.amountMinor, currency: input.currency ?? 'BRL' },
    );
  }

  async payout(input: PayoutInput): Promise<OperationResult> {
    return this.operate(input.merchantId, 'payout', input.reference, () =>
      input.accountNumber.endsWith(PAYOUT_REJECT_SUFFIX) ? refused('AC04') : approved(),
    );
  }

  /**
   * Pays a settlement to the merchant's own account, as the operator's bank would: recorded like a payout
   * (faults injected for `payout` apply to it too), refused as a closed account when the destination's
   * identifier ends in PAYOUT_REJECT_SUFFIX.
   */
  async paySettlement(input: SettlementTransferInput): Promise<OperationResult> {
    return this.operate(input.merchantId, 'payout', input.reference, () =>
      destinationIdentifier(input.destination).endsWith(PAYOUT_REJECT_SUFFIX) ? refused('AC04') : approved(),
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
   * Runs one operation: waits the simulated latency, takes one use of an injected fault, and records
   * the decision under its reference (a repeated reference answers the recorded decision). An approved
   * operation that moves money (`settles`) is recorded with its amount and currency, and the time on
   * the merchant clock: the simulator's books, from which its settlement report is written
   * (reconciliation/sandbox-report.ts).
   */
  private async operate(
    merchantId: string,
    operation: ProcessorOperation,
    reference: string,
    decide: () => OperationResult,
    settles?: { amountMinor: bigint; currency: string },
  ): Promise<OperationResult> {
    if (this.delayMs > 0) await sleep(this.delayMs);
    const decided = decide();
    const settled = decided.status === 'APPROVED' && settles ? settles : undefined;
    // The common case, a new reference and no fault injected: recorded with the other operations of this turn.
    const unfaulted = await this.recordUnfaulted({ merchantId, operation, reference, decided, settled });
    if (unfaulted) return unfaulted;
    const { fault, result: recorded } = await this.record({ merchantId, operation, reference, decided, settled });
    if (fault === 'UNAVAILABLE') throw new ProcessorUnavailableError(operation);
    // Recorded by an earlier call (or a concurrent one, committed after this statement began): read it now.
    const result = recorded ?? (await this.lookup(merchantId, reference));
    if (!result) throw new Error(`sandbox operation ${reference} belongs to another merchant`);
    // A timeout happens after the processor acted: the operation is recorded, the answer is lost.
    if (fault === 'TIMEOUT') throw new ProcessorTimeoutError(operation);
    return result;
  }

  /**
   * Records the operations of one turn of the event loop in one plain INSERT (lib/batch.ts), each
   * unless its merchant has a fault injected for its kind of operation or its reference is on record
   * already; answers the decision recorded, or undefined for the operations left to `record`. Every
   * card authorisation passes here, so under load its record shares a round trip and a commit with the
   * others, as the rest of the hot path does (payments/hot-path.ts).
   */
  private readonly recordUnfaulted = batchCalls(async (operations: readonly UnfaultedOperation[]) => {
    const rows = operations.map((op) => ({
      reference: op.reference,
      merchant_id: op.merchantId,
      operation: op.operation,
      result: op.decided,
      settled_minor: op.settled?.amountMinor ?? null,
      currency: op.settled?.currency ?? null,
    }));
    const { rows: recorded } = await sql<{ reference: string; merchant_id: string; result: OperationResult }>`
      insert into sandbox_operations (reference, merchant_id, operation, result, settled_minor, currency, settled_at)
      select o.reference, o.merchant_id, o.operation, o.result, o.settled_minor, o.currency, ${settledAt(sql.ref('o.settled_minor'), sql.ref('o.merchant_id'))}
      from json_to_recordset(${jsonRows(rows)}::json)
        as o(reference text, merchant_id uuid, operation text, result jsonb, settled_minor bigint, currency text)
      where not exists (select 1 from sandbox_faults as f where f.merchant_id = o.merchant_id and f.operation = o.operation and f.remaining > 0)
      on conflict (reference, merchant_id) do nothing
      returning reference, merchant_id, result`.execute(this.db);
    // A reference is recorded per merchant (the table's key carries it).
    const byReference = new Map(recorded.map((row) => [`${row.merchant_id} ${row.reference}`, row.result]));
    return operations.map((op) => byReference.get(`${op.merchantId} ${op.reference}`));
  });

  /**
   * The simulator's books in one statement (one round trip per operation): takes one use of the
   * merchant's fault for this kind of operation while any remain (`POST /sandbox/processor/faults`,
   * sandbox/processor-faults.ts), and records the decision under its reference unless the fault
   * makes the processor unavailable or the reference is recorded already. Answers the fault taken
   * and the decision recorded now (null when nothing was recorded).
   */
  private async record({ merchantId, operation, reference, decided, settled }: UnfaultedOperation): Promise<{ fault: SandboxFault | null; result: OperationResult | null }> {
    const settledMinor = settled?.amountMinor ?? null;
    const { rows } = await sql<{ fault: SandboxFault | null; result: OperationResult | null }>`
      with fault as (
        update sandbox_faults set remaining = remaining - 1
        where merchant_id = ${merchantId} and operation = ${operation} and remaining > 0
        returning fault
      ),
      recorded as (
        insert into sandbox_operations (reference, merchant_id, operation, result, settled_minor, currency, settled_at)
        select ${reference}::text, ${merchantId}::uuid, ${operation}::text, ${jsonParameter(decided)}::jsonb, ${settledMinor}::bigint, ${settled?.currency ?? null}::text,
          ${settledAt(sql`${settledMinor}::bigint`, sql`${merchantId}::uuid`)}
        where not exists (select 1 from fault where fault = 'UNAVAILABLE')
        on conflict (reference, merchant_id) do nothing
        returning result
      )
      select (select fault from fault) as fault, (select result from recorded) as result`.execute(this.db);
    return rows[0] ?? { fault: null, result: null };
  }
}

interface UnfaultedOperation {
  merchantId: string;
  operation: ProcessorOperation;
  reference: string;
  decided: OperationResult;
  /** What an approved operation moved, when it moves money. */
  settled: { amountMinor: bigint; currency: string } | undefined;
}

/** When an operation that moved money settled: now on its merchant's clock (clock/merchant-clock.ts); null for one that moved none. */
function settledAt(settledMinor: RawBuilder<unknown>, merchantId: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`case when ${settledMinor} is null then null
    else (select now() + m.clock_offset_ms * interval '1 millisecond' from merchants as m where m.id = ${merchantId}) end`;
}

/** What a bank reads to find the account: the PIX key, the account number or the CLABE. */
function destinationIdentifier(destination: SettlementDestination): string {
  if (destination.kind === 'PIX_KEY') return destination.pix_key;
  if (destination.kind === 'BANK_ACCOUNT') return destination.account_number;
  return destination.clabe;
}

function approved(): OperationResult {
  return { status: 'APPROVED', processorId: `sim_${randomUUID()}` };
}

/** A refusal in the simulator's own code, translated at the connector's edge before it is recorded. */
function refused(code: SandboxDeclineCode): OperationResult {
  return translateSandboxCode(code);
}
