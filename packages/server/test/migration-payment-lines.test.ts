import { randomBytes, randomUUID } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../src/db/database';
import { migrateToLatest } from '../src/db/migrate';
import { migrations } from '../src/db/migrations/index';
import { ENGINES } from './harness';
import { adminQuery, testDatabaseUrl } from './postgres-admin';

/**
 * Migration 0048 moves each payment's status history and fee lines from their tables into its row.
 * An installation upgraded with payments already written keeps every line, in order, with its exact
 * time and amount, and still reads them through the views that took the tables' names.
 */
const BEFORE = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0048'));

async function emptyDatabase(engine: 'pglite' | 'postgres'): Promise<{ handle: DatabaseHandle; drop: () => Promise<void> }> {
  if (engine === 'pglite') {
    const handle = await openDatabase({ engine: 'pglite' });
    return { handle, drop: () => handle.close() };
  }
  const name = `colibri_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const handle = await openDatabase({ engine: 'postgres', url: testDatabaseUrl(name), poolSize: 2 });
  return {
    handle,
    drop: async () => {
      await handle.close();
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

describe.each(ENGINES)('migration 0048, payment lines in the row (%s)', (engine) => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
  });

  it("keeps every history and fee line of the payments written before it, in order, exact, and readable through the tables' names", async () => {
    const { handle, drop } = await emptyDatabase(engine);
    drops.push(drop);
    const db = handle.db;
    const before = await new Migrator({ db, provider: { getMigrations: async () => BEFORE }, allowUnorderedMigrations: true }).migrateToLatest();
    expect(before.error).toBeUndefined();

    const merchant = randomUUID();
    await sql`insert into merchants (id, name, contract_id, payout_contract_id, webhook_secret) values (${merchant}, 'Upgraded', 'CT-UPGRADED', 'PO-UPGRADED', 'whsec_x')`.execute(db);
    const [paid, bare] = [randomUUID(), randomUUID()];
    for (const [token, status] of [
      [paid, 'PAID'],
      [bare, 'CREATED'],
    ] as const) {
      await sql`
        insert into payments (payment_token, merchant_id, contract_id, reference_id, method, status, original_amount_minor, original_currency,
          amount_minor, currency, customer_fees_minor, merchant_fees_minor, fee_rules, installments, delay_capture, created_at, updated_at)
        values (${token}, ${merchant}, 'CT-UPGRADED', ${`ref-${status}`}, 'CREDITCARD', ${status}, 10000, 'BRL', 10000, 'BRL', 250, 9007199254740993, '{}', 1, false, now(), now())`.execute(db);
    }
    // Lines inserted out of time order on purpose: the old serial id is their order, and it is kept.
    for (const [status, at] of [
      ['CREATED', '2026-11-01 10:00:00.123456+00'],
      ['PROCESSING', '2026-11-01 10:00:00.123456+00'],
      ['PAID', '2026-11-01 09:59:59.5+00'],
    ]) {
      await sql`insert into payment_status_history (payment_token, merchant_id, status, at) values (${paid}, ${merchant}, ${status}, ${at}::timestamptz)`.execute(db);
    }
    await sql`insert into payment_fees (payment_token, merchant_id, fee_type, payer, amount_minor, currency) values
      (${paid}, ${merchant}, 'TAXES_FEE', 'CUSTOMER', 250, 'BRL'), (${paid}, ${merchant}, 'SERVICE_FEE', 'MERCHANT', 9007199254740993, 'BRL')`.execute(db);

    expect(await migrateToLatest(db)).toEqual(['0048-payment-lines-in-row']);

    const { rows } = await sql<{ payment_token: string; status_history: unknown; fee_lines: unknown }>`
      select payment_token, status_history, fee_lines from payments order by reference_id`.execute(db);
    expect(rows.find((r) => r.payment_token === bare)).toMatchObject({ status_history: [], fee_lines: [] });
    expect(rows.find((r) => r.payment_token === paid)).toMatchObject({
      status_history: [
        { status: 'CREATED', at: '2026-11-01T10:00:00.123456Z' },
        { status: 'PROCESSING', at: '2026-11-01T10:00:00.123456Z' },
        { status: 'PAID', at: '2026-11-01T09:59:59.500000Z' },
      ],
      // Amounts as decimal strings: exact beyond 2^53.
      fee_lines: [
        { fee_type: 'TAXES_FEE', payer: 'CUSTOMER', amount_minor: '250' },
        { fee_type: 'SERVICE_FEE', payer: 'MERCHANT', amount_minor: '9007199254740993' },
      ],
    });

    const history = await sql<{ status: string; at: Date; position: string; merchant_id: string }>`
      select status, at, position::text as position, merchant_id from payment_status_history where payment_token = ${paid} order by position`.execute(db);
    expect(history.rows.map((h) => [h.position, h.status, h.at.toISOString(), h.merchant_id])).toEqual([
      ['1', 'CREATED', '2026-11-01T10:00:00.123Z', merchant],
      ['2', 'PROCESSING', '2026-11-01T10:00:00.123Z', merchant],
      ['3', 'PAID', '2026-11-01T09:59:59.500Z', merchant],
    ]);
    // The microseconds survive in the database (JavaScript's Date above keeps milliseconds).
    const exact = await sql<{ micros: string }>`select extract(microseconds from at)::text as micros from payment_status_history where payment_token = ${paid} and position = 1`.execute(db);
    expect(exact.rows[0]?.micros).toBe('123456');
    const fees = await sql<{ fee_type: string; amount_minor: string; currency: string }>`
      select fee_type, amount_minor::text as amount_minor, currency from payment_fees where payment_token = ${paid} order by position`.execute(db);
    expect(fees.rows).toEqual([
      { fee_type: 'TAXES_FEE', amount_minor: '250', currency: 'BRL' },
      { fee_type: 'SERVICE_FEE', amount_minor: '9007199254740993', currency: 'BRL' },
    ]);
    // The views are for reading: a line is written with its payment's row, never on its own.
    await expect(sql`insert into payment_fees (payment_token, merchant_id, fee_type, payer, amount_minor, currency) values (${bare}, ${merchant}, 'X', 'CUSTOMER', 1, 'BRL')`.execute(db)).rejects.toThrow();
  });
});
