import { sql } from 'kysely';
import type { Db } from '../db/database';
import { jsonParameter } from '../lib/json';
import type { MismatchLine } from './line-records';
import { classify, feeProblem, RECONCILED_PROCESSORS, SETTLING_RULES, type ColibriRecord, type ReconciledProcessor, type SettlingType } from './matching-rules';
import { RECORD_TYPES, type SettlementLine } from './settlement-details-format';

/**
 * Matches one batch of a report's lines against Colibri's records, in the import's transaction: one
 * statement looks every line's record up by Colibri's own reference (each by a primary or unique key:
 * a payment by its token, a refund by its id, a dispute by its processor's reference), notes each record
 * found in the run's scratch table `reconciliation_seen` (what the run found settled, for the operations
 * the processor never listed: missing-at-processor.ts), and answers only the lines that do not plainly
 * match. `classify` then gives those their verdict. A report of a million lines is matched in batches
 * without any of them, or the records found, staying in memory.
 */

/** Colibri's references as it sends them: `<payment token>:authorize`, `<token>:capture:<id>`, `<token>:refund:<refund id>`. */
const TOKEN = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):/;
const REFUND = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):refund:(\d{1,18})$/;

/** What a batch added to its run's counts. */
export interface BatchCounts {
  matched: number;
  mismatched: number;
  missingInColibri: number;
  informational: number;
}

/** The scratch table of a run, dropped when its transaction ends. */
export async function createSeenTable(db: Db): Promise<void> {
  await sql`create temporary table reconciliation_seen (merchant_id uuid not null, kind text not null, key text not null) on commit drop`.execute(db);
}

interface Lookup {
  n: number;
  k: 'payment' | 'refund' | 'dispute';
  t: string | null;
  r: string | null;
  d: string | null;
  /** The states that agree, as `|A|B|`. */
  s: string;
  /** The amount the line moves, in the direction of its type: what Colibri's record should hold. */
  g: bigint;
  c: string;
  p: string | null;
  /** The line's fees are suspect (matching-rules.ts feeProblem): answer it even when the rest agrees. */
  f: boolean;
}

/**
 * Matches `lines` and answers the lines that did not match (to be stored) and the counts.
 * @example const { mismatches, counts } = await matchBatch(trx, runId, 'adyen', lines)
 */
export async function matchBatch(
  db: Db,
  runId: string,
  processor: ReconciledProcessor,
  lines: readonly SettlementLine[],
): Promise<{ mismatches: MismatchLine[]; counts: BatchCounts }> {
  const { disputes, fees } = RECONCILED_PROCESSORS[processor];
  const counts: BatchCounts = { matched: 0, mismatched: 0, missingInColibri: 0, informational: 0 };
  const mismatches: MismatchLine[] = [];
  const lookups: Lookup[] = [];
  const byIndex: SettlementLine[] = [];
  for (const line of lines) {
    const kind = RECORD_TYPES[line.type];
    if (kind === null) {
      counts.informational += 1;
      continue;
    }
    const rule = SETTLING_RULES[line.type as SettlingType];
    const refund = kind === 'refund' ? REFUND.exec(line.modificationMerchantReference) : null;
    const token = refund?.[1] ?? TOKEN.exec(line.merchantReference)?.[1] ?? TOKEN.exec(line.modificationMerchantReference)?.[1] ?? null;
    const dispute = kind === 'dispute' && line.modificationReference !== '' ? line.modificationReference : null;
    if (token === null && dispute === null) {
      // Nothing of Colibri's is named: no merchant either.
      counts.missingInColibri += 1;
      mismatches.push(mismatchOf(runId, line, kind, null, { reason: 'MISSING_IN_COLIBRI', detail: "the line names no reference of Colibri's", expectedFeeMinor: null }));
      continue;
    }
    byIndex.push(line);
    lookups.push({
      n: byIndex.length - 1,
      k: kind,
      t: token,
      r: refund?.[2] ?? null,
      d: dispute,
      s: `|${rule.states.join('|')}|`,
      g: rule.direction * line.grossMinor,
      c: line.grossCurrency,
      p: line.pspReference === '' ? null : line.pspReference,
      f: feeProblem(line, fees) !== undefined,
    });
  }
  if (lookups.length === 0) return { mismatches, counts };

  const { rows } = await sql<{
    n: number;
    merchant_id: string | null;
    resource_id: string | null;
    expected: bigint | null;
    currency: string | null;
    state: string | null;
    processor_id: string | null;
  }>`
    with l as (
      select * from jsonb_to_recordset(${jsonParameter(lookups)}::jsonb)
        as l(n integer, k text, t uuid, r bigint, d text, s text, g bigint, c text, p text, f boolean)
    ),
    m as (
      select l.*, coalesce(dp.merchant_id, rf.merchant_id, pay.merchant_id) as merchant_id, pay.processor_id,
        case l.k when 'payment' then pay.payment_token::text when 'refund' then rf.refund_id::text else dp.dispute_id::text end as resource_id,
        case l.k when 'payment' then pay.captured_minor + pay.customer_fees_minor when 'refund' then rf.amount_minor else dp.amount_minor end as expected,
        case l.k when 'payment' then pay.currency when 'refund' then rf.currency else dp.currency end as currency,
        case l.k
          when 'payment' then case when pay.paid_at is not null and pay.captured_minor > 0 then 'CAPTURED' else pay.status end
          when 'refund' then rf.status
          else case when dp.stage = 'INQUIRY' then 'INQUIRY' else dp.status end end as state
      from l
      left join disputes as dp on l.k = 'dispute' and dp.processor = ${disputes} and dp.processor_reference = l.d
      left join refunds as rf on l.k = 'refund' and rf.refund_id = l.r and rf.payment_token = l.t
      left join payments as pay on pay.payment_token = coalesce(dp.payment_token, l.t)
    ),
    seen as (
      insert into reconciliation_seen (merchant_id, kind, key)
      select merchant_id, k, resource_id from m where resource_id is not null
    )
    select n, merchant_id, resource_id, expected, currency, state, processor_id from m
    where resource_id is null or f or expected is distinct from g or currency is distinct from c
      or position('|' || coalesce(state, '') || '|' in s) = 0 or (p is not null and processor_id is distinct from p)`.execute(db);

  const answered = new Set<number>();
  for (const row of rows) {
    answered.add(row.n);
    const line = byIndex[row.n] as SettlementLine;
    const kind = RECORD_TYPES[line.type] as 'payment' | 'refund' | 'dispute';
    const record: ColibriRecord = {
      merchantId: row.merchant_id,
      resourceId: row.resource_id,
      expectedMinor: row.expected === null ? null : BigInt(row.expected),
      currency: row.currency,
      state: row.state,
      processorId: row.processor_id,
    };
    const verdict = classify(line, record, fees);
    if (verdict.reason === 'MATCHED') {
      counts.matched += 1;
      continue;
    }
    if (verdict.reason === 'MISSING_IN_COLIBRI') counts.missingInColibri += 1;
    else counts.mismatched += 1;
    mismatches.push(mismatchOf(runId, line, kind, record, verdict as { reason: Exclude<typeof verdict.reason, 'MATCHED'>; detail: string; expectedFeeMinor: bigint | null }));
  }
  counts.matched += lookups.length - answered.size;
  return { mismatches, counts };
}

function mismatchOf(
  runId: string,
  line: SettlementLine,
  kind: 'payment' | 'refund' | 'dispute',
  record: ColibriRecord | null,
  verdict: { reason: MismatchLine['reason']; detail: string; expectedFeeMinor: bigint | null },
): MismatchLine {
  const direction = SETTLING_RULES[line.type as SettlingType].direction;
  const empty = (text: string) => (text === '' ? null : text);
  return {
    runId,
    merchantId: record?.merchantId ?? null,
    lineNumber: line.line,
    reason: verdict.reason,
    recordType: line.type,
    pspReference: empty(line.pspReference),
    merchantReference: empty(line.merchantReference),
    modificationReference: empty(line.modificationReference),
    modificationMerchantReference: empty(line.modificationMerchantReference),
    resourceType: record?.resourceId ? kind : null,
    resourceId: record?.resourceId ?? null,
    currency: empty(line.grossCurrency),
    reportedAmountMinor: direction * line.grossMinor,
    expectedAmountMinor: record?.expectedMinor ?? null,
    reportedFeeMinor: line.feeMinor,
    expectedFeeMinor: verdict.expectedFeeMinor,
    reportedNetMinor: line.netMinor < 0n ? -line.netMinor : line.netMinor,
    detail: verdict.detail,
    occurredAt: line.creationDate,
    expectedOn: null,
  };
}
