/**
 * Report export benchmark: 1,000,000 payments exported to CSV over HTTP from Colibri on PostgreSQL,
 * against PostgreSQL's own `COPY (<the same query>) TO STDOUT` measured in the same run, for the
 * default Pay-ins report and for a narrow one. Targets: at least 200,000 rows/s and at most 200 MB
 * peak resident memory of the service.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/reports-export.ts
 *   (TEST_DATABASE_URL works too; BENCH_ROWS changes the row count)
 *
 * The rows are bulk-inserted with `insert … select generate_series` into a fresh database; the service
 * runs as a child process (bench/lib.ts) and the export is downloaded and counted as it arrives.
 */
import { readFileSync } from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../packages/server/src/db/schema';
import { compileReport } from '../packages/server/src/reports/compile-report';
import { DEFAULT_REPORTS } from '../packages/server/src/reports/default-reports';
import { normalizeDefinition, type ReportInput } from '../packages/server/src/reports/report-definition';
import { createBenchDatabase, startColibri } from './lib';

const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!pgUrl) {
  console.error('Set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server URL.');
  process.exit(1);
}
const rowCount = Number(process.env.BENCH_ROWS ?? 1_000_000);

/** The default "Pay-ins" report (16 columns: person and card joins, a masked tax id, free text, dates, amounts), without its date filter. */
const payIns = DEFAULT_REPORTS.find((r) => r.report_type === 'PAYIN' && r.group_by.every((g) => g === ''));
if (!payIns) throw new Error('no default PAYIN report');
const payInsReport: ReportInput = { ...payIns, name: 'Bench export', filters: [] };

/** Six columns of the payment row only: no join, no free text, no masking. */
const narrowReport: ReportInput = {
  ...payInsReport,
  name: 'Bench narrow export',
  fields: [
    { field: { id: 2 }, position: 0, alias: 'Payment token' },
    { field: { id: 1 }, position: 1, alias: 'Status' },
    { field: { id: 7 }, position: 2, alias: 'Created' },
    { field: { id: 33 }, position: 3, alias: 'Amount' },
    { field: { id: 34 }, position: 4, alias: 'Currency' },
    { field: { id: 50 }, position: 5, alias: 'Merchant fees' },
  ],
  order_by: [{ position: 0, field_position: 2, direction: 'DESC' }],
};

/** User and system CPU time of a process so far (/proc/<pid>/stat, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function memoryKb(pid: number, key: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${key}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? Number.NaN);
}

async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const database = await createBenchDatabase(pgUrl);
const service = await startColibri(18_110, { DATABASE_URL: database.url });
const client = new pg.Client({ connectionString: database.url });
try {
  await client.connect();
  const pid = service.child.pid;
  if (pid === undefined) throw new Error('the service has no pid');
  const idleMb = memoryKb(pid, 'VmRSS') / 1024;

  const merchant = await json<{ merchant_id: string; contract_id: string; api_key: string; api_secret: string }>(
    await fetch(`${service.url}/admin/merchants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${service.adminToken}` },
      body: JSON.stringify({ name: 'Bench' }),
    }),
  );
  const { token } = await json<{ token: string }>(
    await fetch(`${service.url}/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: merchant.api_key, apiSecret: merchant.api_secret }),
    }),
  );

  // 1,000 customers with a card each, and the payments spread over them and over the last 30 days.
  const started = Date.now();
  await client.query(
    `insert into persons (merchant_id, name, email, tax_id_type, tax_id)
     select $1, 'Customer ' || g, 'customer' || g || '@example.com', 'CPF', '52998224725' from generate_series(1, 1000) g`,
    [merchant.merchant_id],
  );
  await client.query(
    `insert into cards (merchant_id, person_id, scheme, bin, last4, masked_number, exp_month, exp_year, holder_name, number_ciphertext, key_id)
     select $1, id, 'VISA', '411111', '1111', '411111******1111', 12, 2035, upper(name), 'x', 'bench' from persons where merchant_id = $1`,
    [merchant.merchant_id],
  );
  await client.query(
    `with people as (select row_number() over (order by p.id) as n, p.id as person_id, c.id as card_id
                       from persons p join cards c on c.person_id = p.id where p.merchant_id = $1)
     insert into payments (merchant_id, contract_id, reference_id, method, status, person_id, card_id,
                           original_amount_minor, original_currency, amount_minor, currency, customer_fees_minor,
                           merchant_fees_minor, fee_rules, installments, delay_capture, captured_minor, authorized_minor,
                           created_at, updated_at, paid_at)
     select $1, $2, 'order-' || g, 'CREDITCARD', case when g % 10 = 0 then 'DECLINED' else 'PAID' end,
            people.person_id, people.card_id, 1000 + g % 100000, 'BRL', 1000 + g % 100000, 'BRL', 0,
            39 + (1000 + g % 100000) * 299 / 10000, '[]', 1 + g % 12, false,
            case when g % 10 = 0 then 0 else 1000 + g % 100000 end, case when g % 10 = 0 then 0 else 1000 + g % 100000 end,
            now() - (g % 2592000) * interval '1 second', now(), case when g % 10 = 0 then null else now() - (g % 2592000) * interval '1 second' end
       from generate_series(1, $3::integer) g join people on people.n = 1 + g % 1000`,
    [merchant.merchant_id, merchant.contract_id, rowCount],
  );
  await client.query('analyze');
  console.log(`inserted ${rowCount} payments in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const measure = async (report: ReportInput) => {
    const created = await json<{ id: number }>(
      await fetch(`${service.url}/reports/myreports/report`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-token': token },
        body: JSON.stringify(report),
      }),
    );

    // Baseline: the database alone, writing the same query's rows (COPY takes no parameters, so they
    // are inlined as literals here; the service sends them as parameters).
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 1 }) }) });
    const compiled = compileReport(normalizeDefinition(report), merchant.merchant_id, new Date(), 'csv').query.compile(kysely);
    const inlined = compiled.sql.replace(/\$(\d+)/g, (_, n: string) => client.escapeLiteral(String(compiled.parameters[Number(n) - 1])));
    await kysely.destroy();
    const timeCopy = async (settings: string) => {
      await client.query('begin');
      await client.query(settings);
      const began = Date.now();
      const copy = await client.query(`copy (${inlined}) to stdout with (format csv, header)`);
      const seconds = (Date.now() - began) / 1000;
      await client.query('commit');
      if (copy.rowCount !== rowCount) throw new Error(`COPY wrote ${copy.rowCount} rows, expected ${rowCount}`);
      return seconds;
    };
    // As PostgreSQL runs it by default (it may use parallel workers, as the export's single statement
    // may), and on one backend without JIT (how a cursor runs it: a cursor never uses parallel query).
    const copySeconds = await timeCopy('select 1');
    const copySerialSeconds = await timeCopy('set local max_parallel_workers_per_gather = 0; set local jit = off');

    // The export, downloaded over HTTP and counted line by line as it arrives.
    const cpuBefore = cpuSeconds(pid);
    const started = Date.now();
    const response = await fetch(`${service.url}/reports/myreports/report/${created.id}/export?format=csv`, { headers: { 'x-auth-token': token } });
    if (!response.ok || !response.body) throw new Error(`export answered ${response.status}`);
    let bytes = 0;
    let lines = 0;
    let firstByteMs = 0;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      if (bytes === 0) firstByteMs = Date.now() - started;
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
    }
    const exportSeconds = (Date.now() - started) / 1000;
    if (lines - 1 !== rowCount) throw new Error(`the export has ${lines - 1} rows, expected ${rowCount}`);
    return {
      columns: report.fields.length,
      copySeconds,
      copySerialSeconds,
      exportSeconds,
      firstByteMs,
      bytes,
      serviceCpuSeconds: cpuSeconds(pid) - cpuBefore,
      peakMb: memoryKb(pid, 'VmHWM') / 1024,
    };
  };

  const results = [
    { name: 'default Pay-ins report (16 columns)', ...(await measure(payInsReport)) },
    { name: 'narrow report (6 columns)', ...(await measure(narrowReport)) },
  ];

  const rate = (seconds: number) => Math.round(rowCount / seconds).toLocaleString('en');
  console.log(`\nrows=${rowCount} node=${process.version} service RSS at start ${idleMb.toFixed(0)} MB\n`);
  console.log('| report | COPY rows/s | COPY, one backend, rows/s | export rows/s (≥ 200,000) | export s | ratio to COPY (one backend) | first byte ms | MB sent | service CPU s | service peak RSS MB (≤ 200) |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of results) {
    console.log(
      `| ${r.name} | ${rate(r.copySeconds)} | ${rate(r.copySerialSeconds)} | ${rate(r.exportSeconds)} | ${r.exportSeconds.toFixed(2)} | ${(r.copySeconds / r.exportSeconds).toFixed(2)} (${(r.copySerialSeconds / r.exportSeconds).toFixed(2)}) | ${r.firstByteMs} | ${(r.bytes / 1e6).toFixed(0)} | ${r.serviceCpuSeconds.toFixed(1)} | ${r.peakMb.toFixed(0)} |`,
    );
  }
} finally {
  await client.end().catch(() => undefined);
  await service.stop();
  await database.drop();
}
