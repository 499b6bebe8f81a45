import { sql } from 'kysely';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Db } from '../db/database';

/**
 * The reconciliation series of /metrics, read from the database at each scrape (as the business
 * series are, metrics/business-metrics.ts), so every process reports the same figures:
 * - `colibri_reconciliation_mismatches_total{processor, reason}`: lines that did not match, ever found
 *   (lines are never deleted, so it only grows);
 * - `colibri_reconciliation_mismatches_open{processor, reason}`: those not yet resolved, the operator's
 *   work left (docs/operations.md suggests an alert on it).
 * One statement serves both, reused for `maxAgeMs`.
 */
export function installReconciliationMetrics(registry: Registry, db: Db, maxAgeMs = 5_000): void {
  let cached: { at: number; rows: Promise<MismatchCount[] | undefined> } | undefined;
  const read = () => {
    if (cached === undefined || Date.now() - cached.at > maxAgeMs) cached = { at: Date.now(), rows: countMismatches(db).catch(() => undefined) };
    return cached.rows;
  };
  const labelNames = ['processor', 'reason'] as const;
  new Counter({
    name: 'colibri_reconciliation_mismatches_total',
    help: 'Reconciliation lines that did not match, by processor and reason (amount, fee, missing in Colibri, missing at the processor)',
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await read()) ?? []) this.inc({ processor: row.processor, reason: row.reason }, row.total);
    },
  });
  new Gauge({
    name: 'colibri_reconciliation_mismatches_open',
    help: 'Reconciliation lines that did not match and are not resolved yet, by processor and reason',
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await read()) ?? []) this.set({ processor: row.processor, reason: row.reason }, row.open);
    },
  });
}

interface MismatchCount {
  processor: string;
  reason: string;
  total: number;
  open: number;
}

async function countMismatches(db: Db): Promise<MismatchCount[]> {
  const { rows } = await sql<{ processor: string; reason: string; total: string | number | bigint; open: string | number | bigint }>`
    select r.processor, l.reason, count(*) as total, count(*) filter (where l.status = 'OPEN') as open
    from (select run_id, reason, status from reconciliation_lines
          union all select run_id, reason, status from reconciliation_unattributed_lines) as l
    join reconciliation_runs as r on r.id = l.run_id
    group by r.processor, l.reason`.execute(db);
  return rows.map((row) => ({ processor: row.processor, reason: row.reason, total: Number(row.total), open: Number(row.open) }));
}
