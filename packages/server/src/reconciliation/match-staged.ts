import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import { insertLines, type MismatchLine } from './line-records';
import { classify, RECONCILED_PROCESSORS, SETTLING_RULES, type ColibriRecord, type ReconciledProcessor, type SettlingType } from './matching-rules';
import type { RecordType, SettlementLine } from './settlement-details-format';
import type { StagedDetails } from './stage-lines';

/**
 * The second half of matching a report (stage-lines.ts is the first): every staged line is joined with
 * Colibri's record it names, in one statement the database runs by hashing, which answers the merchants
 * whose records the report names and the lines that do not plainly match. Those few are then read with
 * their records a chunk at a time, `classify` (matching-rules.ts) gives each its verdict, and the lines
 * that did not match are stored.
 *
 * Each record is found by Colibri's own reference: a payment by its token (`<token>:authorize`), a refund
 * by its id (`<token>:refund:<id>`), a dispute by the processor's reference of it. What the record should
 * hold is what the processor moved: a payment's capture with the customer's fees (the capture journal's
 * processor_receivable), a refund's amount, a dispute's amount.
 */

/** Problem lines read back per statement. */
const CHUNK = 5_000;

/** Colibri's record of each staged line; with `details`, the rest of the line too (only read back for problems). */
function joined(processor: ReconciledProcessor, details: boolean): RawBuilder<unknown> {
  const states = JSON.stringify(Object.fromEntries(Object.entries(SETTLING_RULES).map(([type, rule]) => [type, `|${rule.states.join('|')}|`])));
  return sql`
    select s.n, s.y, s.k, s.p, s.c, s.g, s.f, ${details ? sql`s.x,` : sql``} coalesce(dp.merchant_id, rf.merchant_id, pay.merchant_id) as merchant_id, pay.processor_id,
      case s.k when 'payment' then pay.payment_token::text when 'refund' then rf.refund_id::text else dp.dispute_id::text end as resource_id,
      case s.k when 'payment' then pay.captured_minor + pay.customer_fees_minor when 'refund' then rf.amount_minor else dp.amount_minor end as expected,
      case s.k when 'payment' then pay.currency when 'refund' then rf.currency else dp.currency end as currency,
      case s.k
        when 'payment' then case when pay.paid_at is not null and pay.captured_minor > 0 then 'CAPTURED' else pay.status end
        when 'refund' then rf.status
        else case when dp.stage = 'INQUIRY' then 'INQUIRY' else dp.status end end as state,
      rule.states
    from reconciliation_staged as s
    join (select key as y, value as states from json_each_text(${states}::json)) as rule on rule.y = s.y
    left join disputes as dp on s.k = 'dispute' and dp.processor = ${RECONCILED_PROCESSORS[processor].disputes} and dp.processor_reference = s.d
    left join refunds as rf on s.k = 'refund' and rf.refund_id = s.r and rf.payment_token = s.t
    left join payments as pay on pay.payment_token = coalesce(dp.payment_token, s.t)`;
}

/** A line that does not plainly match: no record, another state, amount, currency or psp reference, or fees wrong by themselves. */
const PROBLEM = sql`(m.resource_id is null or m.f or m.expected is distinct from m.g or m.currency is distinct from m.c
  or position('|' || coalesce(m.state, '') || '|' in m.states) = 0 or (m.p <> '' and m.processor_id is distinct from m.p))`;

export interface StagedVerdicts {
  matched: number;
  mismatched: number;
  missingInColibri: number;
  /** The merchants whose records the report's lines name. */
  merchantIds: string[];
}

/**
 * @example const { matched, merchantIds } = await matchStaged(trx, runId, 'adyen', staged)
 */
export async function matchStaged(db: Db, runId: string, processor: ReconciledProcessor, staged: number): Promise<StagedVerdicts> {
  const verdicts: StagedVerdicts = { matched: 0, mismatched: 0, missingInColibri: 0, merchantIds: [] };
  if (staged === 0) return verdicts;
  const { rows } = await sql<{ merchant_id: string | null; problems: number[] | null }>`
    select m.merchant_id::text as merchant_id, array_agg(m.n) filter (where ${PROBLEM}) as problems
    from (${joined(processor, false)}) as m
    group by m.merchant_id`.execute(db);
  const problems = rows.flatMap((row) => row.problems ?? []).sort((a, b) => a - b);
  verdicts.merchantIds = rows.flatMap((row) => (row.merchant_id === null ? [] : [row.merchant_id]));
  // Read back by line number: with many problem lines, an index saves a pass over the staged lines per chunk.
  if (problems.length > CHUNK) await sql`create index on reconciliation_staged (n)`.execute(db);
  const { fees } = RECONCILED_PROCESSORS[processor];
  for (let start = 0; start < problems.length; start += CHUNK) {
    const chunk = problems.slice(start, start + CHUNK);
    const found = await sql<StagedRow>`
      select m.* from (${joined(processor, true)}) as m
      where m.n in (select value::integer from json_array_elements_text(${JSON.stringify(chunk)}::json))
      order by m.n`.execute(db);
    const mismatches: MismatchLine[] = [];
    for (const row of found.rows) {
      const details = JSON.parse(row.x) as StagedDetails;
      const line = lineOf(row, details);
      const record: ColibriRecord = {
        merchantId: row.merchant_id,
        resourceId: row.resource_id,
        expectedMinor: row.expected === null ? null : BigInt(row.expected),
        currency: row.currency,
        state: row.state,
        processorId: row.processor_id,
      };
      const verdict = classify(line, record, fees);
      if (verdict.reason === 'MATCHED') continue;
      if (verdict.reason === 'MISSING_IN_COLIBRI') verdicts.missingInColibri += 1;
      else verdicts.mismatched += 1;
      const empty = (text: string) => (text === '' ? null : text);
      mismatches.push({
        runId,
        merchantId: row.merchant_id,
        lineNumber: row.n,
        reason: verdict.reason,
        recordType: row.y,
        pspReference: empty(row.p),
        merchantReference: empty(line.merchantReference),
        modificationReference: empty(line.modificationReference),
        modificationMerchantReference: empty(line.modificationMerchantReference),
        resourceType: row.resource_id === null ? null : (row.k as MismatchLine['resourceType']),
        resourceId: row.resource_id,
        currency: empty(row.c),
        reportedAmountMinor: BigInt(row.g),
        expectedAmountMinor: record.expectedMinor,
        reportedFeeMinor: line.feeMinor,
        expectedFeeMinor: verdict.expectedFeeMinor,
        reportedNetMinor: line.netMinor < 0n ? -line.netMinor : line.netMinor,
        detail: verdict.detail,
        occurredAt: line.creationDate,
        expectedOn: null,
      });
    }
    await insertLines(db, mismatches);
  }
  verdicts.matched = staged - verdicts.mismatched - verdicts.missingInColibri;
  return verdicts;
}

interface StagedRow {
  n: number;
  y: string;
  k: string;
  p: string;
  c: string;
  g: bigint | string;
  f: boolean;
  x: string;
  merchant_id: string | null;
  processor_id: string | null;
  resource_id: string | null;
  expected: bigint | string | null;
  currency: string | null;
  state: string | null;
}

/** The line again, from what was staged of it (what classify reads). */
function lineOf(row: StagedRow, details: StagedDetails): SettlementLine {
  const type = row.y as RecordType;
  const direction = SETTLING_RULES[type as SettlingType].direction;
  const [merchantReference, modificationReference, modificationMerchantReference, netCurrency, feeMinor, netMinor, atMs] = details;
  return {
    line: row.n,
    merchantAccount: '',
    pspReference: row.p,
    merchantReference,
    type,
    creationDate: atMs === null ? null : new Date(atMs),
    zoneOffsetHours: 0,
    modificationReference,
    modificationMerchantReference,
    grossCurrency: row.c,
    grossMinor: direction * BigInt(row.g),
    netCurrency,
    netMinor: BigInt(netMinor),
    feeMinor: BigInt(feeMinor),
    batchNumber: null,
  };
}
