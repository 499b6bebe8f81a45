import { sql } from 'kysely';
import type { Db } from './database';

/** A table analysed at this many pages (1 MB) or more is left to autovacuum (analyseGrownTables). */
export const YOUNG_TABLE_PAGES = 128;

/**
 * Planner statistics for tables that have outgrown what the planner last measured of them.
 *
 * PostgreSQL plans a prepared statement once per connection and keeps that plan until the table's
 * statistics change. Until a table has been analysed, the planner guesses: it takes any equality as
 * 0.5% selective. On a young table (a few hundred payments) that guess makes an index on
 * `(merchant_id, created_at)` look as cheap as the primary key `(payment_token, merchant_id)`, and
 * the foreign-key check of every history and fee row (`… where payment_token = $1 and merchant_id = $2`)
 * can be planned on the merchant's index: a scan of all of the merchant's payments per row, kept for
 * the connection's life. Autovacuum corrects it within a minute on a default server; a server run
 * with autovacuum off never does, and the embedded database (PGlite) has no autovacuum at all. Measured
 * in bench/payments.ts: sendPayment at 0.29x to 0.56x pgbench across runs with such plans, 0.52x to
 * 0.61x without the checks (docs/performance.md).
 *
 * So every worker process analyses a young table whose size has doubled since its statistics were last
 * taken: a handful of ANALYZEs in a table's life (at 2, 4, 8, … pages), each of a
 * sample, and each one makes every connection re-plan its statements on that table. This is a floor,
 * not autovacuum's replacement, which also vacuums and keeps large tables' figures current.
 *
 * The floor stops once a table's statistics were taken at `YOUNG_TABLE_PAGES` or more. The planner scales
 * the rows it expects by the table's size now (the density of the last analysis times its pages today),
 * so growth alone no longer misleads it; what goes stale past that is how the values are spread, which
 * is autovacuum's to follow. The ANALYZEs past it were the costly ones: each reads a sample of 30,000 rows
 * of a table of thousands of pages, about 60 µs of PostgreSQL's CPU per payment over a benchmark's first
 * ten seconds on a fresh database (docs/performance.md).
 *
 * @example const analysed = await analyseGrownTables(ctx.db); // ['payments', 'payment_operations']
 */
export async function analyseGrownTables(db: Db, youngPages = YOUNG_TABLE_PAGES): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name
    from pg_class c
    where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and c.relpages < ${youngPages}
      and pg_relation_size(c.oid) / current_setting('block_size')::int >= 2 * greatest(c.relpages, 1)
    order by c.relname`.execute(db);
  const names = rows.map((row) => row.name);
  await analyseTables(db, names);
  return names;
}

/**
 * Takes the planner's statistics of the given tables now, in one statement.
 * @example await analyseTables(ctx.db, ['webhook_deliveries', 'webhook_attempts']);
 */
export async function analyseTables(db: Db, names: readonly string[]): Promise<void> {
  if (names.length > 0) await sql`analyze ${sql.join(names.map((name) => sql.table(name)))}`.execute(db);
}
