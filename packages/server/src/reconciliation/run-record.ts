import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database';
import type { ReconciliationLineColumns } from '../db/tables/reconciliation';
import { exponentOf } from '../lib/currencies';
import { toJsonNumber } from '../lib/money';
import { formatDateTime } from '../lib/time-format';
import type { ReconciledProcessor } from './matching-rules';

/** A run's counts as the importer keeps them while it reads. */
export interface RunCounts {
  lines: number;
  matched: number;
  mismatched: number;
  missingInColibri: number;
  missingAtProcessor: number;
  informational: number;
}

export function emptyCounts(): RunCounts {
  return { lines: 0, matched: 0, mismatched: 0, missingInColibri: 0, missingAtProcessor: 0, informational: 0 };
}

/** A run as the API shows it (contract: run_id, lines, matched, mismatched, missing_in_colibri, missing_at_processor). */
export interface RunView {
  run_id: string;
  processor: string;
  lines: number;
  matched: number;
  mismatched: number;
  missing_in_colibri: number;
  missing_at_processor: number;
  informational: number;
  period_from: string | null;
  period_to: string | null;
  imported_by: string | null;
  created_at: string;
}

/**
 * Writes a run's row last, in the transaction that wrote its lines. Answers false, writing nothing,
 * when the processor's same file (by its SHA-256) was imported before: the caller rolls back.
 */
export async function insertRun(
  db: Db,
  run: { id: string; processor: ReconciledProcessor; sha256: string; counts: RunCounts; from: Date | null; to: Date | null; importedBy: string | null },
): Promise<boolean> {
  const c = run.counts;
  const { rows } = await sql<{ id: string }>`
    insert into reconciliation_runs (id, processor, file_sha256, lines, matched, mismatched, missing_in_colibri, missing_at_processor, informational, period_from, period_to, imported_by)
    values (${run.id}, ${run.processor}, ${run.sha256}, ${c.lines}, ${c.matched}, ${c.mismatched}, ${c.missingInColibri}, ${c.missingAtProcessor}, ${c.informational},
      ${run.from}, ${run.to}, ${run.importedBy})
    on conflict (processor, file_sha256) do nothing
    returning id`.execute(db);
  return rows.length > 0;
}

const RUN_COLUMNS = [
  'id',
  'processor',
  'lines',
  'matched',
  'mismatched',
  'missing_in_colibri',
  'missing_at_processor',
  'informational',
  'period_from',
  'period_to',
  'imported_by',
  'created_at',
] as const;

type RunRow = { id: string; processor: string; lines: number; matched: number; mismatched: number; missing_in_colibri: number; missing_at_processor: number; informational: number; period_from: Date | null; period_to: Date | null; imported_by: string | null; created_at: Date };

function runView(row: RunRow): RunView {
  return {
    run_id: row.id,
    processor: row.processor,
    lines: row.lines,
    matched: row.matched,
    mismatched: row.mismatched,
    missing_in_colibri: row.missing_in_colibri,
    missing_at_processor: row.missing_at_processor,
    informational: row.informational,
    period_from: row.period_from ? formatDateTime(row.period_from) : null,
    period_to: row.period_to ? formatDateTime(row.period_to) : null,
    imported_by: row.imported_by,
    created_at: formatDateTime(row.created_at),
  };
}

export async function loadRun(db: Db, runId: string): Promise<RunView | undefined> {
  const row = await db.selectFrom('reconciliation_runs').select(RUN_COLUMNS).where('id', '=', runId).executeTakeFirst();
  return row ? runView(row) : undefined;
}

export async function loadRunByDigest(db: Db, processor: ReconciledProcessor, sha256: string): Promise<RunView | undefined> {
  const row = await db.selectFrom('reconciliation_runs').select(RUN_COLUMNS).where('processor', '=', processor).where('file_sha256', '=', sha256).executeTakeFirst();
  return row ? runView(row) : undefined;
}

/** Runs, newest first, a page at a time. */
export async function listRuns(db: Db, page: number, size: number): Promise<{ runs: RunView[]; total: number }> {
  const [rows, total] = await Promise.all([
    db.selectFrom('reconciliation_runs').select(RUN_COLUMNS).orderBy('created_at', 'desc').orderBy('id').limit(size).offset(page * size).execute(),
    db.selectFrom('reconciliation_runs').select((eb) => eb.fn.countAll<string | number | bigint>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { runs: rows.map(runView), total: Number(total.n) };
}

/** A line that did not match, as the API shows it: amounts in decimals of its currency. */
export interface LineView {
  line_id: string;
  merchant_id: string | null;
  line_number: number | null;
  reason: string;
  status: string;
  record_type: string | null;
  psp_reference: string | null;
  merchant_reference: string | null;
  modification_reference: string | null;
  modification_merchant_reference: string | null;
  resource_type: string | null;
  resource_id: string | null;
  asset: string | null;
  reported_amount: number | null;
  expected_amount: number | null;
  reported_fee: number | null;
  expected_fee: number | null;
  reported_net: number | null;
  detail: string;
  occurred_at: string | null;
  expected_on: string | null;
  resolved_at: string | null;
  resolved_by: string | null;
  resolution_note: string | null;
  adjustment_id: string | null;
}

const LINE_SELECT = sql.raw(`id, line_number, reason, status, record_type, psp_reference, merchant_reference, modification_reference,
  modification_merchant_reference, resource_type, resource_id, currency, reported_amount_minor, expected_amount_minor, reported_fee_minor,
  expected_fee_minor, reported_net_minor, detail, occurred_at, expected_on::text as expected_on, resolved_at, resolved_by, resolution_note, adjustment_id`);

/** A line as LINE_SELECT reads it from either table: the merchant's id is null for an unattributed line. */
type LineRow = Omit<Selectable<ReconciliationLineColumns>, 'run_id'> & { merchant_id: string | null };

/**
 * The lines of a run that did not match, of both tables, in the report's order (operations missing at
 * the processor last), a page at a time, and how many there are.
 */
export async function listLines(
  db: Db,
  runId: string,
  query: { page: number; size: number; reason?: string | undefined; status?: string | undefined },
): Promise<{ lines: LineView[]; total: number }> {
  const where = sql`run_id = ${runId}${query.reason ? sql` and reason = ${query.reason}` : sql``}${query.status ? sql` and status = ${query.status}` : sql``}`;
  const [{ rows }, counted] = await Promise.all([
    sql<LineRow>`
      select merchant_id::text as merchant_id, ${LINE_SELECT} from reconciliation_lines where ${where}
      union all
      select null, ${LINE_SELECT} from reconciliation_unattributed_lines where ${where}
      order by line_number nulls last, resource_id, id
      limit ${query.size} offset ${query.page * query.size}`.execute(db),
    sql<{ n: string | number | bigint }>`
      select (select count(*) from reconciliation_lines where ${where}) + (select count(*) from reconciliation_unattributed_lines where ${where}) as n`.execute(db),
  ]);
  return { lines: rows.map(lineView), total: Number(counted.rows[0]?.n ?? 0) };
}

/** One line of a run, from whichever table holds it. */
export async function loadLine(db: Db, runId: string, lineId: string): Promise<LineView | undefined> {
  const { rows } = await sql<LineRow>`
    select merchant_id::text as merchant_id, ${LINE_SELECT} from reconciliation_lines where run_id = ${runId} and id = ${lineId}
    union all
    select null, ${LINE_SELECT} from reconciliation_unattributed_lines where run_id = ${runId} and id = ${lineId}`.execute(db);
  return rows[0] ? lineView(rows[0]) : undefined;
}

function lineView(row: LineRow): LineView {
  const exponent = exponentOf(row.currency ?? '');
  const money = (minor: bigint | null) => (minor === null ? null : toJsonNumber(BigInt(minor), exponent));
  return {
    line_id: row.id,
    merchant_id: row.merchant_id,
    line_number: row.line_number,
    reason: row.reason,
    status: row.status,
    record_type: row.record_type,
    psp_reference: row.psp_reference,
    merchant_reference: row.merchant_reference,
    modification_reference: row.modification_reference,
    modification_merchant_reference: row.modification_merchant_reference,
    resource_type: row.resource_type,
    resource_id: row.resource_id,
    asset: row.currency,
    reported_amount: money(row.reported_amount_minor),
    expected_amount: money(row.expected_amount_minor),
    reported_fee: money(row.reported_fee_minor),
    expected_fee: money(row.expected_fee_minor),
    reported_net: money(row.reported_net_minor),
    detail: row.detail,
    occurred_at: row.occurred_at ? formatDateTime(new Date(row.occurred_at)) : null,
    expected_on: row.expected_on,
    resolved_at: row.resolved_at ? formatDateTime(new Date(row.resolved_at)) : null,
    resolved_by: row.resolved_by,
    resolution_note: row.resolution_note,
    adjustment_id: row.adjustment_id,
  };
}
