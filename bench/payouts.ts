/**
 * Payout batch benchmark: `POST /payoutTransaction` with 1,000 valid items (validation, pricing and
 * storage in one transaction), timed end to end over HTTP against the service running as a child
 * process, on PGlite and (with BENCH_DATABASE_URL or TEST_DATABASE_URL) on a fresh PostgreSQL
 * database. In the same run it times, as baselines, the validation alone in this process and a plain
 * multi-row INSERT of 1,000 comparable rows through `pg`. Target: ≤ 500 ms on PostgreSQL.
 *
 *   npx tsx bench/payouts.ts            # BENCH_RUNS=10 measured batches per engine by default
 *
 * The service runs with COLIBRI_WORKERS=off so the processor simulator does not pay out the previous
 * batch while the next one is timed: the figure is the request's own work.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { PAYOUT_EXAMPLES } from '../packages/server/src/payouts/validation/examples';
import { parsePayoutBatch } from '../packages/server/src/payouts/validation/validate-payout';
import { createBenchDatabase, startColibri } from './lib';

const BATCH_SIZE = 1000;
const runs = Number(process.env.BENCH_RUNS ?? 10);
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

interface Stats {
  median: number;
  min: number;
  max: number;
}

function stats(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? NaN, min: sorted[0] ?? NaN, max: sorted.at(-1) ?? NaN };
}

/** 1,000 valid items: the documented examples in turn, each with its own reference. */
function batch(contractId: string, run: number): unknown[] {
  return Array.from({ length: BATCH_SIZE }, (_, index) => {
    const example = PAYOUT_EXAMPLES[index % PAYOUT_EXAMPLES.length];
    if (!example) throw new Error('no examples');
    return { ...example.item, contract_id: contractId, reference_id: `bench-${run}-${index}` };
  });
}

async function time(action: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

/** The batch over HTTP: one warm-up, then `runs` timed requests. */
async function measureService(engine: 'pglite' | 'postgres', databaseUrl: string | undefined): Promise<Stats> {
  const service = await startColibri(18_211, { COLIBRI_WORKERS: 'off', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) });
  try {
    const created = (await (
      await fetch(`${service.url}/admin/merchants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${service.adminToken}` },
        body: JSON.stringify({ name: `Bench ${engine}` }),
      })
    ).json()) as { api_key: string; api_secret: string; payout_contract_id: string };
    const auth = (await (
      await fetch(`${service.url}/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiKey: created.api_key, apiSecret: created.api_secret }),
      })
    ).json()) as { token: string };
    const samples: number[] = [];
    for (let run = 0; run <= runs; run += 1) {
      const body = JSON.stringify({ payoutTransactions: batch(created.payout_contract_id, run) });
      let status = 0;
      const elapsed = await time(async () => {
        const response = await fetch(`${service.url}/payoutTransaction`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-auth-token': auth.token },
          body,
        });
        status = response.status;
        await response.arrayBuffer();
      });
      if (status !== 200) throw new Error(`${engine}: POST /payoutTransaction answered ${status}`);
      if (run > 0) samples.push(elapsed);
    }
    return stats(samples);
  } finally {
    await service.stop();
  }
}

/** The validation alone, in this process, on the same kind of batch. */
function measureValidation(): Stats {
  const samples: number[] = [];
  for (let run = 0; run <= runs; run += 1) {
    const items = batch('PO-BENCH', run);
    const start = performance.now();
    const result = parsePayoutBatch(items);
    const elapsed = performance.now() - start;
    if (!result.ok) throw new Error('the benchmark batch is not valid');
    if (run > 0) samples.push(elapsed);
  }
  return stats(samples);
}

/**
 * The floor on PostgreSQL: one multi-row INSERT of 1,000 rows shaped like payouts (same columns and
 * types, in a copy of the table made by the migrations), through `pg` with no service in between.
 */
async function measurePlainInsert(databaseUrl: string): Promise<Stats> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('create table bench_payouts (like payouts including defaults)');
    const columns = [
      'tx_id', 'merchant_id', 'batch_id', 'batch_index', 'contract_id', 'reference_id', 'country', 'method',
      'original_amount_minor', 'original_currency', 'amount_minor', 'currency', 'merchant_fees_minor', 'merchant_amount_minor',
      'customer_fees_minor', 'customer_amount_minor', 'fees', 'bank_code', 'account_type', 'account_number', 'tax_id_type',
      'tax_id', 'email', 'full_name', 'notification_url', 'status', 'created_at', 'updated_at',
    ];
    const samples: number[] = [];
    for (let run = 0; run <= runs; run += 1) {
      const values: unknown[] = [];
      const rows: string[] = [];
      for (let index = 0; index < BATCH_SIZE; index += 1) {
        const row = [
          randomUUID(), randomUUID(), randomUUID(), index, 'PO-BENCH', `bench-${run}-${index}`, 'PE', 'BANK_TRANSFER',
          '150075', 'PEN', '150075', 'PEN', '1501', '151576', '0', '150075',
          '[{"type":"SERVICE_FEE","payer":"MERCHANT","amount_minor":"1501"}]', '002', 'CC', '1932345678012', 'DNI',
          '45678912', 'rosa.quispe@correo.example.pe', 'Rosa Elena Quispe Mamani', 'https://merchant.example.com/payouts/callback',
          'CREATED', new Date(), new Date(),
        ];
        rows.push(`(${row.map((_, column) => `$${values.length + column + 1}`).join(', ')})`);
        values.push(...row);
      }
      const text = `insert into bench_payouts (${columns.join(', ')}) values ${rows.join(', ')}`;
      const elapsed = await time(async () => void (await client.query(text, values)));
      if (run > 0) samples.push(elapsed);
    }
    return stats(samples);
  } finally {
    await client.end();
  }
}

const format = (s: Stats) => `${s.median.toFixed(1)} | ${s.min.toFixed(1)} | ${s.max.toFixed(1)}`;

console.log(`\n${BATCH_SIZE}-item payout batch, ${runs} measured runs after one warm-up, node ${process.version}\n`);
console.log('| measurement | median ms | min ms | max ms |');
console.log('| --- | ---: | ---: | ---: |');
console.log(`| validation only (parsePayoutBatch, in process) | ${format(measureValidation())} |`);
console.log(`| pglite: POST /payoutTransaction (validation + pricing + storage, over HTTP) | ${format(await measureService('pglite', undefined))} |`);
if (pgUrl) {
  const database = await createBenchDatabase(pgUrl);
  try {
    console.log(`| postgres: POST /payoutTransaction (validation + pricing + storage, over HTTP) | ${format(await measureService('postgres', database.url))} |`);
    console.log(`| postgres baseline: one plain 1,000-row INSERT via pg | ${format(await measurePlainInsert(database.url))} |`);
  } finally {
    await database.drop();
  }
} else {
  console.log('\n(set BENCH_DATABASE_URL or TEST_DATABASE_URL for the PostgreSQL figures)');
}
