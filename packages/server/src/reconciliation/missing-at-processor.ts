import { sql, type RawBuilder } from 'kysely';
import { clockAt } from '../clock/merchant-clock';
import type { Db } from '../db/database';
import { balanceDay } from '../ledger/ledger';
import { addBusinessDays } from '../rails/calendar';
import type { MismatchLine } from './line-records';
import { RECONCILED_PROCESSORS, type ReconciledProcessor } from './matching-rules';

/**
 * The operations Colibri has that a run's report should have settled and did not: the captured
 * payments and completed refunds of the processor, of the merchants the report speaks for, made within
 * the report's period, that no line named, and whose expected settlement date has passed on their
 * merchant's clock. The expected date is the day of the capture or refund (where the currency's balance
 * is kept: ledger/ledger.ts balanceDay) plus the processor's settlement delay in business days
 * (matching-rules.ts RECONCILED_PROCESSORS). An operation whose date has not come yet is not counted: a
 * later report should list it.
 *
 * Which operations are the processor's is read from its own books as Colibri keeps them: the Adyen
 * connector's record of each reference (connector_operations), the simulator's (sandbox_operations).
 */

/** The period a report covers, and the merchants it speaks for. */
export interface ReportScope {
  readonly from: Date;
  readonly to: Date;
  readonly merchantIds: readonly string[];
}

/**
 * An operation of the processor's, by its reference, as its books hold it: a lateral subquery with a
 * limit, so that each of the few operations left is looked up by key, never the books hashed whole.
 */
const PROCESSOR_BOOKS: Readonly<Record<ReconciledProcessor, ((reference: RawBuilder<string>, merchantId: RawBuilder<string>) => RawBuilder<unknown>) | null>> = {
  adyen: (reference, merchantId) =>
    sql`lateral (select 1 from connector_operations as b where b.connector = 'adyen' and b.reference = ${reference} and b.merchant_id = ${merchantId} limit 1) as books`,
  sandbox: (reference, merchantId) => sql`lateral (select 1 from sandbox_operations as b where b.reference = ${reference} and b.merchant_id = ${merchantId} limit 1) as books`,
  // A PIX payment is the PSP's when its charge was (`<token>:charge`), a refund when its devolução was.
  pix: (reference, merchantId) =>
    sql`lateral (select 1 from connector_operations as b where b.connector = 'pix' and b.reference = replace(${reference}, ':authorize', ':charge') and b.merchant_id = ${merchantId} limit 1) as books`,
};

/** How far before a report's period a payment may have been created and still be captured in it (a pre-authorisation lives 5 days). */
const CREATED_BEFORE_DAYS = 7;
/** How far before its period a refund may have been asked for and still complete in it. */
const REQUESTED_BEFORE_DAYS = 30;

/**
 * The lines for operations missing at the processor, ready to store.
 * @example const lines = await missingAtProcessor(trx, runId, 'adyen', { from, to, merchantIds })
 */
export async function missingAtProcessor(db: Db, runId: string, processor: ReconciledProcessor, scope: ReportScope): Promise<MismatchLine[]> {
  const books = PROCESSOR_BOOKS[processor];
  if (!books || scope.merchantIds.length === 0) return [];
  const merchants = sql`(select value::uuid from jsonb_array_elements_text(${JSON.stringify(scope.merchantIds)}::jsonb))`;
  // Operations of the period that no line names first (a hash anti-join with the staged lines), and of
  // those, the processor's: its books are read for the few left, not for every operation of the period.
  const { rows } = await sql<{ kind: 'payment' | 'refund'; merchant_id: string; resource_id: string; amount: bigint; currency: string; at: Date; psp: string | null; reference: string }>`
    with payments_unlisted as materialized (
      select p.merchant_id, p.payment_token, p.captured_minor + p.customer_fees_minor as amount, p.currency, p.paid_at, p.processor_id
      from payments as p
      where p.merchant_id in ${merchants}
        and p.created_at >= ${scope.from}::timestamptz - make_interval(days => ${CREATED_BEFORE_DAYS}) and p.created_at < ${scope.to}
        and p.paid_at >= ${scope.from} and p.paid_at < ${scope.to} and p.captured_minor > 0
        and not exists (select 1 from reconciliation_staged as s where s.k = 'payment' and s.t = p.payment_token)
    ),
    refunds_unlisted as materialized (
      select r.merchant_id, r.refund_id, r.payment_token, r.amount_minor, r.currency, r.completed_at
      from refunds as r
      where r.merchant_id in ${merchants}
        and r.created_at >= ${scope.from}::timestamptz - make_interval(days => ${REQUESTED_BEFORE_DAYS}) and r.created_at < ${scope.to}
        and r.status = 'COMPLETED' and r.completed_at >= ${scope.from} and r.completed_at < ${scope.to}
        and not exists (select 1 from reconciliation_staged as s where s.k = 'refund' and s.r = r.refund_id)
    )
    select 'payment' as kind, u.merchant_id, u.payment_token::text as resource_id, u.amount, u.currency, u.paid_at as at, u.processor_id as psp,
      u.payment_token::text || ':authorize' as reference
    from payments_unlisted as u
    cross join ${books(sql<string>`u.payment_token::text || ':authorize'`, sql<string>`u.merchant_id`)}
    union all
    select 'refund', u.merchant_id, u.refund_id::text, u.amount_minor, u.currency, u.completed_at, null, u.payment_token::text || ':refund:' || u.refund_id::text
    from refunds_unlisted as u
    cross join ${books(sql<string>`u.payment_token::text || ':refund:' || u.refund_id::text`, sql<string>`u.merchant_id`)}
    order by at, resource_id`.execute(db);
  if (rows.length === 0) return [];

  const clocks = await db.selectFrom('merchants').select(['id', 'clock_offset_ms']).where('id', 'in', [...new Set(rows.map((r) => r.merchant_id))]).execute();
  const nowOf = new Map(clocks.map((m) => [m.id, clockAt(m.clock_offset_ms)]));
  const delay = RECONCILED_PROCESSORS[processor].settlesInBusinessDays;
  const lines: MismatchLine[] = [];
  for (const row of rows) {
    const expectedOn = addBusinessDays(balanceDay(row.at, row.currency), delay);
    const today = balanceDay(nowOf.get(row.merchant_id) ?? new Date(), row.currency);
    if (expectedOn >= today) continue;
    lines.push({
      runId,
      merchantId: row.merchant_id,
      lineNumber: null,
      reason: 'MISSING_AT_PROCESSOR',
      recordType: row.kind === 'payment' ? 'Settled' : 'Refunded',
      pspReference: row.psp,
      merchantReference: row.kind === 'payment' ? row.reference : null,
      modificationReference: null,
      modificationMerchantReference: row.kind === 'refund' ? row.reference : null,
      resourceType: row.kind,
      resourceId: row.resource_id,
      currency: row.currency,
      reportedAmountMinor: null,
      expectedAmountMinor: BigInt(row.amount) * (row.kind === 'payment' ? 1n : -1n),
      reportedFeeMinor: null,
      expectedFeeMinor: null,
      reportedNetMinor: null,
      detail: `Colibri's ${row.kind} ${row.resource_id} of ${balanceDay(row.at, row.currency)} should have been settled by ${expectedOn}; the report does not list it`,
      occurredAt: row.at,
      expectedOn,
    });
  }
  return lines;
}

/**
 * Resolves the open MISSING_AT_PROCESSOR lines of earlier runs of the processor whose operations this
 * run's report lists after all: the processor settled them late. Answers how many.
 */
export async function resolveSettledLate(db: Db, runId: string, processor: ReconciledProcessor): Promise<number> {
  const open = await sql<{ n: string | number | bigint }>`
    select count(*) as n from reconciliation_lines as l join reconciliation_runs as r on r.id = l.run_id
    where l.reason = 'MISSING_AT_PROCESSOR' and l.status = 'OPEN' and r.processor = ${processor}`.execute(db);
  if (Number(open.rows[0]?.n ?? 0) === 0) return 0;
  const result = await sql`
    update reconciliation_lines as l
    set status = 'RESOLVED', resolved_at = now(), resolved_by = 'colibri', resolution_note = 'settled late: listed by reconciliation run ' || ${runId}::text
    from reconciliation_runs as r
    where l.reason = 'MISSING_AT_PROCESSOR' and l.status = 'OPEN' and r.id = l.run_id and r.processor = ${processor}
      and ((l.resource_type = 'payment' and l.resource_id in (select s.t::text from reconciliation_staged as s where s.k = 'payment'))
        or (l.resource_type = 'refund' and l.resource_id in (select s.r::text from reconciliation_staged as s where s.k = 'refund')))`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
