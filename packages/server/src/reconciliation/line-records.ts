import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/database';
import { jsonParameter } from '../lib/json';
import type { LineReason } from './matching-rules';

/**
 * A line of a run that did not match, as stored: lines of a merchant in `reconciliation_lines` (tenant
 * keyed), lines that name nothing of Colibri's in `reconciliation_unattributed_lines` (the operator's).
 * Matched lines are only counted. One insert writes any number of lines of both kinds.
 */
export interface MismatchLine {
  readonly runId: string;
  /** The merchant whose records the line names; null when it names none. */
  readonly merchantId: string | null;
  readonly lineNumber: number | null;
  readonly reason: LineReason;
  readonly recordType: string | null;
  readonly pspReference: string | null;
  readonly merchantReference: string | null;
  readonly modificationReference: string | null;
  readonly modificationMerchantReference: string | null;
  readonly resourceType: 'payment' | 'refund' | 'dispute' | null;
  readonly resourceId: string | null;
  readonly currency: string | null;
  readonly reportedAmountMinor: bigint | null;
  readonly expectedAmountMinor: bigint | null;
  readonly reportedFeeMinor: bigint | null;
  readonly expectedFeeMinor: bigint | null;
  readonly reportedNetMinor: bigint | null;
  readonly detail: string;
  readonly occurredAt: Date | null;
  readonly expectedOn: string | null;
}

const COLUMNS = `run_id uuid, line_number integer, reason text, record_type text, psp_reference text, merchant_reference text,
  modification_reference text, modification_merchant_reference text, resource_type text, resource_id text, currency text,
  reported_amount_minor bigint, expected_amount_minor bigint, reported_fee_minor bigint, expected_fee_minor bigint,
  reported_net_minor bigint, detail text, occurred_at timestamptz, expected_on date`;
const NAMES = COLUMNS.split(',').map((c) => c.trim().split(' ')[0] as string);

/**
 * Writes lines in the caller's transaction, each to its table, in one statement.
 * @example await insertLines(trx, [{ runId, merchantId, reason: 'FEE_MISMATCH', … }])
 */
export async function insertLines(db: Db, lines: readonly MismatchLine[]): Promise<void> {
  if (lines.length === 0) return;
  const rows = lines.map((l) => ({
    id: randomUUID(),
    merchant_id: l.merchantId,
    run_id: l.runId,
    line_number: l.lineNumber,
    reason: l.reason,
    record_type: l.recordType,
    psp_reference: l.pspReference,
    merchant_reference: l.merchantReference,
    modification_reference: l.modificationReference,
    modification_merchant_reference: l.modificationMerchantReference,
    resource_type: l.resourceType,
    resource_id: l.resourceId,
    currency: l.currency,
    reported_amount_minor: l.reportedAmountMinor,
    expected_amount_minor: l.expectedAmountMinor,
    reported_fee_minor: l.reportedFeeMinor,
    expected_fee_minor: l.expectedFeeMinor,
    reported_net_minor: l.reportedNetMinor,
    detail: l.detail,
    occurred_at: l.occurredAt,
    expected_on: l.expectedOn,
  }));
  const list = sql.raw(NAMES.join(', '));
  const fromL = sql.raw(NAMES.map((n) => `l.${n}`).join(', '));
  await sql`
    with l as (select * from json_to_recordset(${jsonParameter(rows)}::json) as l(id uuid, merchant_id uuid, ${sql.raw(COLUMNS)})),
    owned as (insert into reconciliation_lines (id, merchant_id, ${list}) select l.id, l.merchant_id, ${fromL} from l where l.merchant_id is not null)
    insert into reconciliation_unattributed_lines (id, ${list}) select l.id, ${fromL} from l where l.merchant_id is null`.execute(db);
}
