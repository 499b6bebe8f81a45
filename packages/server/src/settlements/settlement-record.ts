import { sql } from 'kysely';
import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { balanceDay, postJournal, type JournalLine } from '../ledger/ledger';
import { exponentOf } from '../lib/currencies';
import { isUuid } from '../lib/identifiers';
import { toJsonNumber } from '../lib/money';
import { allowedFrom, assertMove, movedMeanwhile, stampOf } from '../lib/state-machine';
import { formatDateTime } from '../lib/time-format';
import type { SettlementDestination } from '../processor/processor';
import { SETTLEMENT_STATES, type SettlementStatus } from './states';

/** A stored settlement, its days as `YYYY-MM-DD` text. */
export interface SettlementRow {
  settlement_id: string;
  merchant_id: string;
  currency: string;
  amount_minor: bigint;
  status: SettlementStatus;
  settlement_day: string;
  destination: SettlementDestination;
  arrival_date: string;
  processor_reference: string;
  processor_id: string | null;
  failure_code: string | null;
  failure_description: string | null;
  created_at: Date;
  updated_at: Date;
  in_transit_at: Date | null;
  paid_at: Date | null;
  failed_at: Date | null;
}

/** The columns of a settlement as SettlementRow has them: its date columns read as text (drivers make local Dates of them). */
export const SETTLEMENT_COLUMNS = [
  'settlement_id',
  'merchant_id',
  'currency',
  'amount_minor',
  'status',
  sql<string>`settlement_day::text`.as('settlement_day'),
  'destination',
  sql<string>`arrival_date::text`.as('arrival_date'),
  'processor_reference',
  'processor_id',
  'failure_code',
  'failure_description',
  'created_at',
  'updated_at',
  'in_transit_at',
  'paid_at',
  'failed_at',
] as const;

/**
 * The reference under which a settlement is sent to the processor, and the key of its job. Fixed per
 * settlement, so a resend after a timeout or a crash is the same transfer to the processor, never a second.
 * @example settlementReference(id) // '<settlement_id>:settlement'
 */
export function settlementReference(settlementId: string): string {
  return `${settlementId}:settlement`;
}

/**
 * Loads a merchant's settlement and locks its row for the rest of the transaction.
 * @example const settlement = await lockSettlement(trx, merchantId, settlementId);
 */
export async function lockSettlement(trx: Db, merchantId: string, settlementId: string): Promise<SettlementRow | undefined> {
  if (!isUuid(settlementId)) return undefined;
  const row = await trx
    .selectFrom('settlements')
    .select(SETTLEMENT_COLUMNS)
    .where('merchant_id', '=', merchantId)
    .where('settlement_id', '=', settlementId)
    .forUpdate()
    .executeTakeFirst();
  return row as SettlementRow | undefined;
}

/**
 * A merchant's settlement, or SETTLEMENT_NOT_FOUND (another merchant's is not found either).
 * @example const settlement = await loadSettlement(db, merchantId, settlementId);
 */
export async function loadSettlement(db: Db, merchantId: string, settlementId: string): Promise<SettlementRow> {
  const row = isUuid(settlementId)
    ? await db.selectFrom('settlements').select(SETTLEMENT_COLUMNS).where('merchant_id', '=', merchantId).where('settlement_id', '=', settlementId).executeTakeFirst()
    : undefined;
  if (!row) throw new ApiError('SETTLEMENT_NOT_FOUND', 'settlement_id: no settlement of this merchant has this id.');
  return row as SettlementRow;
}

const time = (at: Date | null) => (at === null ? null : formatDateTime(at));

/**
 * A settlement as the API shows it (CONTRACTS.md: `{settlement_id, amount, asset, status, arrival_date, …}`).
 * @example settlementView(row) // { settlement_id, amount: 96.24, asset: 'BRL', status: 'PAID', arrival_date: '2026-11-24', … }
 */
export function settlementView(row: SettlementRow) {
  return {
    settlement_id: row.settlement_id,
    amount: toJsonNumber(row.amount_minor, exponentOf(row.currency)),
    asset: row.currency,
    status: row.status,
    arrival_date: row.arrival_date,
    settlement_date: row.settlement_day,
    destination: row.destination,
    failure_code: row.failure_code,
    failure_description: row.failure_description,
    created_at: formatDateTime(row.created_at),
    in_transit_at: time(row.in_transit_at),
    paid_at: time(row.paid_at),
    failed_at: time(row.failed_at),
  };
}

export type SettlementView = ReturnType<typeof settlementView>;

/**
 * Ledger lines of a new settlement (docs/balance-and-settlements.md, "Money"): what Colibri owes the merchant
 * goes down by the amount, from the settlement's day, and the money waits in `settlement_clearing` until the
 * bank takes it. Its balance transaction (SETTLEMENT) takes the amount out of the available balance.
 * @example settlementCreatedLines(row, now) // [merchant_payable +9624 (today), settlement_clearing −9624]
 */
export function settlementCreatedLines(settlement: Pick<SettlementRow, 'amount_minor' | 'currency'>, at: Date): JournalLine[] {
  return [
    { account: 'merchant_payable', amountMinor: settlement.amount_minor, availableOn: balanceDay(at, settlement.currency) },
    { account: 'settlement_clearing', amountMinor: -settlement.amount_minor },
  ];
}

/**
 * Ledger lines of a settlement the bank took: the money left the account the processor keeps for Colibri,
 * which now holds that much less for it, and the clearing account is settled. No balance transaction: the
 * merchant's balance moved when the settlement was made.
 * @example settlementPaidLines(row) // [settlement_clearing +9624, processor_receivable −9624]
 */
export function settlementPaidLines(settlement: Pick<SettlementRow, 'amount_minor'>): JournalLine[] {
  return [
    { account: 'settlement_clearing', amountMinor: settlement.amount_minor },
    { account: 'processor_receivable', amountMinor: -settlement.amount_minor },
  ];
}

/**
 * Ledger lines of a settlement that failed: the creation journal reversed, available from the day it failed,
 * so its money is the merchant's available balance again (a SETTLEMENT balance transaction with a positive net).
 * @example settlementFailedLines(row, now) // [merchant_payable −9624 (today), settlement_clearing +9624]
 */
export function settlementFailedLines(settlement: Pick<SettlementRow, 'amount_minor' | 'currency'>, at: Date): JournalLine[] {
  return settlementCreatedLines(settlement, at).map((line) => ({ ...line, amountMinor: -line.amountMinor }));
}

/** The journal each status writes, if any; PENDING's is written when the settlement is made (sweep-settlements.ts). */
const STATUS_JOURNALS: Partial<Record<SettlementStatus, (settlement: SettlementRow, at: Date) => JournalLine[]>> = {
  PAID: settlementPaidLines,
  FAILED: settlementFailedLines,
};

/** What a status change may record beside the status. */
export interface SettlementStatusPatch {
  readonly arrival_date?: string;
  readonly processor_id?: string;
  readonly failure_code?: string;
  readonly failure_description?: string;
}

/**
 * Moves a settlement to a new status in the caller's transaction, which must hold its row lock
 * (`lockSettlement`): the row with its status timestamp and the status's journal are written together or not
 * at all. Settlements have no callback (the contract's callback types have none): merchants read
 * `GET /settlements` or watch their balance. A move the state table does not allow throws IllegalMoveError
 * before anything is written.
 * @example
 * await ctx.db.transaction().execute(async (trx) => {
 *   const settlement = await lockSettlement(trx, merchantId, settlementId);
 *   if (settlement) await changeSettlementStatus(trx, settlement, 'PAID', now, { processor_id: 'sim_…' });
 * });
 */
export async function changeSettlementStatus(trx: Db, settlement: SettlementRow, status: SettlementStatus, at: Date, patch: SettlementStatusPatch = {}): Promise<SettlementRow> {
  assertMove(SETTLEMENT_STATES, settlement.status, status);
  const updated = await trx
    .updateTable('settlements')
    .set({ ...patch, status, updated_at: at, ...stampOf(SETTLEMENT_STATES, status, at, settlement) })
    .where('merchant_id', '=', settlement.merchant_id)
    .where('settlement_id', '=', settlement.settlement_id)
    .where('status', 'in', allowedFrom(SETTLEMENT_STATES, status))
    .returning(SETTLEMENT_COLUMNS)
    .executeTakeFirst();
  if (!updated) throw movedMeanwhile(SETTLEMENT_STATES, settlement.status, status);
  const lines = STATUS_JOURNALS[status]?.(updated as SettlementRow, at);
  if (lines) {
    await postJournal(trx, {
      merchantId: settlement.merchant_id,
      kind: `settlement.${status.toLowerCase()}`,
      currency: settlement.currency,
      resourceId: settlement.settlement_id,
      at,
      balance: { type: 'SETTLEMENT', sourceId: settlement.settlement_id },
      lines,
    });
  }
  return updated as SettlementRow;
}
