import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { customerWithCard, paymentBody } from './fixtures';
import { describeEachEngine } from './harness';

/**
 * The schema can be distributed by merchant as it is (docs/scaling.md, "Sharding by merchant"). A
 * distributed PostgreSQL places each row by a distribution column and requires that column in every
 * primary key and unique constraint, and in both sides of every foreign key between two distributed
 * tables. Every table is listed here, once, and a new table fails this test until it is:
 * - TENANT: a merchant's data, distributed by `merchant_id` (co-located: a merchant's rows are on one node).
 * - SHARED: not distributed by merchant, each with its placement and why.
 *   `reference`: small, read everywhere, copied to every node; tenant tables may point at it.
 *   `local`: kept on one node (the coordinator) and never pointed at by a tenant table.
 */
const TENANT = [
  'balance_adjustments',
  'balance_transactions',
  'boleto_registrations',
  'boleto_returns',
  'card_encryption_keys',
  'cards',
  'checkout_payment_codes',
  'checkout_sessions',
  'connector_operations',
  'dashboard_sessions',
  'dispute_file_chunks',
  'dispute_files',
  'dispute_notices',
  'disputes',
  'events',
  'external_authentications',
  'fee_plans',
  'ledger_entries',
  'merchant_connectors',
  'payment_operations',
  'payments',
  'payout_dispatches',
  'payout_status_history',
  'payouts',
  'persons',
  'refund_status_history',
  'refunds',
  'reconciliation_lines',
  'reports',
  'sandbox_faults',
  'sandbox_operations',
  'settlement_destinations',
  'settlement_settings',
  'settlements',
  'subscription_charge_attempts',
  'subscription_charges',
  'subscriptions',
  'three_ds_authentications',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_endpoints',
  'webhook_secrets',
];

const SHARED: Record<string, { placement: 'reference' | 'local'; reason: string }> = {
  boleto_bank_files: { placement: 'local', reason: "the operator's CNAB files with the bank, each holding many merchants' boletos; written and read by the files pass only" },
  boleto_findings: { placement: 'local', reason: "what the operator must look at in the bank's returns, some for boletos no merchant owns; read by the operator only" },
  merchants: { placement: 'reference', reason: 'the tenants themselves: every tenant table points at it, and sign-in and admin routes read it by contract id' },
  users: {
    placement: 'reference',
    reason: '/auth finds a user by api_key before any merchant is known, so api_key and username are unique across merchants; few rows, rarely written',
  },
  fx_rates: { placement: 'reference', reason: 'one rate per currency for every merchant' },
  settings: { placement: 'reference', reason: "the instance's own settings (key rotation, counters), not any merchant's" },
  token_signing_keys: { placement: 'reference', reason: "the instance's token signing keys: every node verifies every merchant's tokens" },
  jobs: {
    placement: 'local',
    reason: 'the queue: workers claim due jobs of every merchant with `for update skip locked` in one statement, which a query over many nodes cannot do',
  },
  idempotency_keys: {
    placement: 'local',
    reason: "keyed by its scope, which is a merchant's or an admin or public route's; each statement on it is one key's and stands alone (distributable by scope)",
  },
  rate_limits: { placement: 'local', reason: 'counters by client address and by route, across merchants' },
  reconciliation_runs: {
    placement: 'reference',
    reason: "an operator's import of a processor's report, across merchants: one small row per file, pointed at by the merchants' reconciliation lines and adjustments",
  },
  reconciliation_unattributed_lines: {
    placement: 'local',
    reason: "lines of a processor's report that name nothing of Colibri's, so no merchant: the operator's to resolve",
  },
  connector_notifications: { placement: 'local', reason: "a provider's notification ids, seen before the merchant is known: deduplication by the provider's key" },
  kysely_migration: { placement: 'local', reason: 'the migrations applied' },
  kysely_migration_lock: { placement: 'local', reason: "the migrator's lock, taken by one process at a time" },
};

interface Key {
  table_name: string;
  name: string;
  kind: 'p' | 'u' | 'f' | 'i';
  columns: string[];
  referenced_table: string | null;
  referenced_columns: string[] | null;
}

describeEachEngine('tenant keys', (service) => {
  const keys = async () => {
    // Constraints (primary, unique, foreign) and unique indexes made without a constraint, with their
    // columns in order.
    const { rows } = await sql<Key>`
      select c.relname as table_name, k.conname as name, k.contype as kind,
        array(select a.attname::text from unnest(k.conkey) with ordinality as u(attnum, n)
              join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.attnum order by u.n) as columns,
        r.relname as referenced_table,
        case when k.confrelid = 0 then null else
          array(select a.attname::text from unnest(k.confkey) with ordinality as u(attnum, n)
                join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.attnum order by u.n) end as referenced_columns
      from pg_constraint k
      join pg_class c on c.oid = k.conrelid
      join pg_namespace s on s.oid = c.relnamespace and s.nspname = 'public'
      left join pg_class r on r.oid = k.confrelid
      where k.contype in ('p', 'u', 'f')
      union all
      select c.relname, ic.relname, 'i',
        array(select a.attname::text from unnest(i.indkey::int2[]) with ordinality as u(attnum, n)
              join pg_attribute a on a.attrelid = i.indrelid and a.attnum = u.attnum order by u.n),
        null, null
      from pg_index i
      join pg_class c on c.oid = i.indrelid
      join pg_class ic on ic.oid = i.indexrelid
      join pg_namespace s on s.oid = c.relnamespace and s.nspname = 'public'
      where i.indisunique and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)`.execute(service().ctx.db);
    return rows;
  };

  it('lists every table once, as tenant or as shared with a placement and a reason', async () => {
    const { rows } = await sql<{ table_name: string }>`
      select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(service().ctx.db);
    const listed = [...TENANT, ...Object.keys(SHARED)];
    expect(new Set(listed).size, 'a table is listed twice').toBe(listed.length);
    // A table missing here must be added to TENANT (with merchant_id in its keys) or to SHARED (with why).
    expect(rows.map((r) => r.table_name).sort()).toEqual(listed.sort());
    for (const [name, shared] of Object.entries(SHARED)) expect(shared.reason.length, `${name} needs a reason`).toBeGreaterThan(10);
  });

  it('gives every tenant table a non-null merchant_id in its primary key and in each of its unique keys', async () => {
    const { rows } = await sql<{ table_name: string; is_nullable: string }>`
      select table_name, is_nullable from information_schema.columns
      where table_schema = 'public' and column_name = 'merchant_id'`.execute(service().ctx.db);
    const nullable = new Map(rows.map((r) => [r.table_name, r.is_nullable]));
    const all = await keys();
    const problems: string[] = [];
    for (const table of TENANT) {
      if (nullable.get(table) !== 'NO') problems.push(`${table}: no non-null merchant_id`);
      const own = all.filter((k) => k.table_name === table);
      if (!own.some((k) => k.kind === 'p')) problems.push(`${table}: no primary key`);
      for (const key of own.filter((k) => k.kind !== 'f')) {
        if (!key.columns.includes('merchant_id')) problems.push(`${table}: ${key.name} (${key.columns.join(', ')}) lacks merchant_id`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('pairs merchant_id in every foreign key between tenant tables, and points tenant tables only at reference tables beside', async () => {
    const problems: string[] = [];
    for (const fk of (await keys()).filter((k) => k.kind === 'f')) {
      const from = fk.table_name;
      const to = fk.referenced_table ?? '';
      const described = `${from}.${fk.name} → ${to}`;
      if (TENANT.includes(from) && TENANT.includes(to)) {
        // merchant_id on both sides at the same position: a row can only point at its own merchant's rows.
        const at = fk.columns.indexOf('merchant_id');
        if (at < 0 || fk.referenced_columns?.[at] !== 'merchant_id') problems.push(`${described}: (${fk.columns.join(', ')}) does not pair merchant_id`);
      } else if (TENANT.includes(from)) {
        if (SHARED[to]?.placement !== 'reference') problems.push(`${described}: a tenant table may point only at a reference table`);
      } else if (TENANT.includes(to)) {
        problems.push(`${described}: a shared table may not point at a tenant table`);
      } else if (SHARED[from]?.placement === 'reference' && SHARED[to]?.placement !== 'reference') {
        problems.push(`${described}: a reference table may point only at a reference table`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("refuses a child row that names another merchant's parent", async () => {
    const db = service().ctx.db;
    const [a, b] = [await service().merchant('Tenant A'), await service().merchant('Tenant B')];
    const payment = await service().post('/checkout/sendPayment', paymentBody(a, await customerWithCard(service(), a)), { token: a.token });
    expect(payment.status, JSON.stringify(payment.body)).toBe(200);
    const token = payment.body.payment_token as string;
    const operations = await db.selectFrom('payment_operations').select(['merchant_id']).where('payment_token', '=', token).execute();
    expect(operations.length).toBeGreaterThan(0);
    expect(operations.every((o) => o.merchant_id === a.merchant_id)).toBe(true);
    const foreign = { id: randomUUID(), payment_token: token, merchant_id: b.merchant_id, kind: 'capture', amount_minor: 1n, reference: `${token}:capture:x`, requested_at: new Date() };
    await expect(db.insertInto('payment_operations').values(foreign).execute()).rejects.toThrow(/payment_operations_payment_token_merchant_id_fkey/);
  });
});
