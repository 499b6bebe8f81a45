import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachEngine } from './harness';

/**
 * Which tables can be distributed by merchant (docs/scaling.md, "Sharding by merchant"). A distributed
 * PostgreSQL places rows by a distribution column and requires it in every primary key and unique
 * constraint, so each table is classified here, and a new table fails this test until it is:
 * - KEYED: tenant data with `merchant_id` in its primary key; distributable as it is.
 * - TENANT: tenant data with a non-null `merchant_id` column that its primary key does not include yet;
 *   distribution needs `(merchant_id, id)` keys (the migration plan is in docs/scaling.md).
 * - CHILD: rows of a tenant row (history, fees, attempts) without their own `merchant_id`; they reach
 *   the merchant through their parent and need the column copied before distribution.
 * - SHARED: not tenant data (the tenant table itself, the queue, reference data, bookkeeping);
 *   reference or local tables in a distributed deployment.
 */
const KEYED = ['fee_plans', 'merchant_connectors', 'sandbox_faults'];
const TENANT = [
  'card_encryption_keys',
  'cards',
  'checkout_sessions',
  'connector_operations',
  'dashboard_sessions',
  'events',
  'ledger_entries',
  'payments',
  'payouts',
  'persons',
  'refunds',
  'reports',
  'sandbox_operations',
  'subscription_charges',
  'subscriptions',
  'three_ds_authentications',
  'users',
  'webhook_deliveries',
  'webhook_secrets',
];
const CHILD = [
  'checkout_payment_codes',
  'payment_fees',
  'payment_status_history',
  'payout_status_history',
  'refund_status_history',
  'subscription_charge_attempts',
  'webhook_attempts',
];
const SHARED = ['connector_notifications', 'fx_rates', 'idempotency_keys', 'jobs', 'kysely_migration', 'kysely_migration_lock', 'merchants', 'rate_limits', 'settings', 'token_signing_keys'];

describeEachEngine('tenant keys', (service) => {
  it('classifies every table, and every tenant table carries a non-null merchant_id (in its key where KEYED)', async () => {
    const { rows } = await sql<{ table_name: string; merchant_id_nullable: string | null; key: string | null }>`
      select t.table_name,
        (select c.is_nullable from information_schema.columns c
          where c.table_schema = 'public' and c.table_name = t.table_name and c.column_name = 'merchant_id') as merchant_id_nullable,
        (select string_agg(a.attname, ',' order by a.attname) from pg_index i
          join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
          where i.indrelid = (quote_ident(t.table_name))::regclass and i.indisprimary) as key
      from information_schema.tables t
      where t.table_schema = 'public' and t.table_type = 'BASE TABLE'`.execute(service().ctx.db);
    const tables = new Map(rows.map((r) => [r.table_name, r]));
    const classified = [...KEYED, ...TENANT, ...CHILD, ...SHARED].sort();
    // A table missing from the lists above must be classified there (and in docs/scaling.md).
    expect([...tables.keys()].sort()).toEqual(classified);
    for (const name of [...KEYED, ...TENANT]) {
      expect(tables.get(name)?.merchant_id_nullable, `${name}.merchant_id`).toBe('NO');
    }
    const keyedNow = [...tables.values()].filter((r) => r.key?.split(',').includes('merchant_id')).map((r) => r.table_name);
    expect(keyedNow.sort()).toEqual(KEYED);
    for (const name of CHILD) expect(tables.get(name)?.merchant_id_nullable, `${name} has merchant_id now: move it to TENANT`).toBeNull();
  });
});
