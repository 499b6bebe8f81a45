import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../src/db/database';
import { expect, it } from 'vitest';
import { analyseGrownTables } from '../src/db/planner-statistics';
import { customerWithCard, paymentBody } from './fixtures';
import { describeEachEngine } from './harness';

describeEachEngine('planner statistics for grown tables', (service) => {
  /**
   * Inserts `copies` copies of the payments `source` selects, each under a new token: every column but
   * the generated ones (migration 0047), which PostgreSQL computes.
   */
  const copyPayments = async (db: Db, source: RawBuilder<unknown>, copies: number) => {
    const { rows } = await sql<{ list: string }>`
      select string_agg(quote_ident(column_name), ', ' order by ordinal_position) as list
      from information_schema.columns where table_name = 'payments' and is_generated = 'NEVER'`.execute(db);
    const columns = sql.raw(rows[0]?.list as string);
    await sql`
      insert into payments (${columns})
      select ${columns} from (
        select (jsonb_populate_record(null::payments, to_jsonb(p) || jsonb_build_object('payment_token', gen_random_uuid(), 'idempotency_key', null))).*
        from (${source}) as p, generate_series(1, ${copies})) as copy`.execute(db);
  };
  const relation = async (name: string) =>
    (await sql<{ relpages: number; reltuples: number }>`select relpages, reltuples::float8 as reltuples from pg_class where relname = ${name}`.execute(service().ctx.db))
      .rows[0];

  it('analyses a table that doubled, once, and the foreign-key check of a payment is then planned on its primary key', async () => {
    const db = service().ctx.db;
    const merchant = await service().merchant('Statistics');
    const payment = await service().post('/checkout/sendPayment', paymentBody(merchant, await customerWithCard(service(), merchant)), { token: merchant.token });
    expect(payment.status, JSON.stringify(payment.body)).toBe(200);
    // A young payments table of one merchant, the size at which the planner, guessing, rated the
    // merchant's index as cheap as the primary key for the check below (db/planner-statistics.ts).
    // The lock keeps the background sweep from analysing the table halfway through the insert.
    await db.transaction().execute(async (trx) => {
      await sql`lock table payments in share update exclusive mode`.execute(trx);
      await copyPayments(trx, sql`select * from payments where payment_token = ${payment.body.payment_token as string}`, 400);
    });
    const count = Number((await sql<{ n: string }>`select count(*) as n from payments`.execute(db)).rows[0]?.n);

    await analyseGrownTables(db);
    expect(await relation('payments')).toMatchObject({ reltuples: count });
    expect(await analyseGrownTables(db), 'nothing grew since').not.toContain('payments');

    // The statement PostgreSQL runs for each operation of a payment (payment_operations_payment_token_merchant_id_fkey),
    // planned once for any values, as a connection's cached plan is.
    const plan = await db.connection().execute(async (connection) => {
      await sql`set plan_cache_mode = force_generic_plan`.execute(connection);
      try {
        await sql.raw('prepare fk_check(uuid, uuid) as select 1 from only payments x where payment_token = $1 and merchant_id = $2 for key share of x').execute(connection);
        // Literals: EXPLAIN EXECUTE takes no bound parameters.
        const { rows } = await sql<{ 'QUERY PLAN': string }>`explain execute fk_check(${sql.lit(payment.body.payment_token as string)}, ${sql.lit(merchant.merchant_id)})`.execute(
          connection,
        );
        await sql`deallocate fk_check`.execute(connection);
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      } finally {
        await sql`reset plan_cache_mode`.execute(connection);
      }
    });
    expect(plan).toContain('using payments_pkey');
  });

  it('leaves a table analysed at its ceiling of young pages to autovacuum, however it grows', async () => {
    const db = service().ctx.db;
    await analyseGrownTables(db);
    const before = await relation('payments');
    expect(before?.relpages).toBeGreaterThan(0);
    // The lock keeps the service's own sweep (with the real ceiling) from analysing the table meanwhile.
    await db.transaction().execute(async (trx) => {
      await sql`lock table payments in share update exclusive mode`.execute(trx);
      await copyPayments(trx, sql`select * from payments`, 3);
      // Grown past twice its analysed size: analysed while young, left alone once it is not.
      expect(await analyseGrownTables(trx, before?.relpages)).not.toContain('payments');
      expect(await analyseGrownTables(trx, (before?.relpages ?? 0) + 1)).toContain('payments');
    });
  });

  it('leaves a table that has not grown since it was analysed', async () => {
    const db = service().ctx.db;
    await analyseGrownTables(db);
    const before = await relation('payments');
    await copyPayments(db, sql`select * from payments limit 1`, 1);
    expect(await analyseGrownTables(db)).not.toContain('payments');
    expect(await relation('payments')).toEqual(before);
  });
});
