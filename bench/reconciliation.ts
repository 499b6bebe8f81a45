/**
 * Reconciliation benchmark: an Adyen Settlement details report of 1,000,000 lines imported over HTTP
 * into Colibri on PostgreSQL and matched against as many records of Colibri's. Targets: at least
 * 100,000 lines/s and under 300 MB peak resident memory of the service (the report is streamed).
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:reconciliation
 *   (TEST_DATABASE_URL works too; BENCH_LINES changes the line count; BENCH_KEEP=1 keeps the database and the file)
 *
 * The records are bulk-inserted with `insert … select generate_series` into a fresh database: card
 * payments captured through Adyen (each with its connector record, which is how Colibri knows it is
 * Adyen's) and completed refunds of a tenth of them, all captured 14 to 8 days ago. The report settles
 * every payment and refund: 1 line in 10 a Refunded line, the rest Settled lines, with interchange++
 * fees and the net they leave. To exercise every path, a line in 10,000 has a wrong amount, another a
 * wrong fee, another names nothing of Colibri's, and a payment in 10,000 is left out of the report
 * (past its settlement date: missing at the processor). The file is written to disk first and sent
 * from there, so the figures are the service's alone; the same file is then sent again, which must
 * change nothing. The service runs as a child process (bench/lib.ts).
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import pg from 'pg';
import { createBenchDatabase, startColibri } from './lib';

const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!pgUrl) {
  console.error('Set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server URL.');
  process.exit(1);
}
const lineCount = Number(process.env.BENCH_LINES ?? 1_000_000);
/** BENCH_KEEP=1 keeps the database and the report after the run, to study a plan or a profile on them. */
const keep = process.env.BENCH_KEEP === '1';
/** Payments seeded: a Settled line each, and a Refunded line for one in ten. */
const paymentCount = Math.round(lineCount / 1.1);
const refundEvery = 10;
const DAY = 86_400_000;

const HEADER =
  'Company Account,Merchant Account,Psp Reference,Merchant Reference,Payment Method,Creation Date,TimeZone,Type,Modification Reference,Gross Currency,' +
  'Gross Debit (GC),Gross Credit (GC),Exchange Rate,Net Currency,Net Debit (NC),Net Credit (NC),Commission (NC),Markup (NC),Scheme Fees (NC),Interchange (NC),' +
  'Payment Method Variant,Modification Merchant Reference,Batch Number,Reserved4,Reserved5,Reserved6,Reserved7,Reserved8,Reserved9,Reserved10';

/** The payment token of payment `g`, as the seeding SQL makes it: md5('bench-' || g)::uuid. */
function tokenOf(g: number): string {
  const hex = createHash('md5').update(`bench-${g}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
const amountOf = (g: number) => 1000 + (g % 100_000);
const refundOf = (g: number) => 100 + (g % 500);
/** Captured `g % 7 + 8` days ago, at a second of the day: past the settlement date whatever the weekends and holidays between. */
const capturedAt = (now: number, g: number) => new Date(Math.floor(now / DAY) * DAY - (8 + (g % 7)) * DAY + (g % 86_000) * 1000);
const money = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The CPU seconds of the PostgreSQL backends serving `database` (this machine's server), by pid. */
async function backendCpu(client: pg.Client, database: string): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database]);
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      cpu.set(pid, cpuSeconds(pid));
    } catch {
      // A backend that ended meanwhile.
    }
  }
  return cpu;
}

function memoryKb(pid: number, key: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${key}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? Number.NaN);
}

/** Writes the report: every payment's Settled line, every tenth one's Refunded line, the planted differences. */
async function writeReport(file: string, now: number) {
  const out = createWriteStream(file);
  const planted = { AMOUNT_MISMATCH: 0, FEE_MISMATCH: 0, MISSING_IN_COLIBRI: 0, MISSING_AT_PROCESSOR: 0 };
  let lines = 0;
  let text = `${HEADER}\n`;
  const line = (fields: string[]) => {
    text += `${fields.join(',')}\n`;
    lines += 1;
  };
  for (let g = 1; g <= paymentCount; g += 1) {
    const token = tokenOf(g);
    const at = capturedAt(now, g).toISOString().slice(0, 19).replace('T', ' ');
    const psp = `88${String(g).padStart(14, '0')}`;
    if (g % 10_000 === 5) {
      planted.MISSING_AT_PROCESSOR += 1;
    } else {
      let gross = amountOf(g);
      const markup = Math.round(gross * 0.006);
      const scheme = Math.round(gross * 0.001);
      const interchange = Math.round(gross * 0.013);
      let fee = markup + scheme + interchange;
      if (g % 10_000 === 1) {
        gross += 1;
        planted.AMOUNT_MISMATCH += 1;
      }
      const net = gross - fee;
      if (g % 10_000 === 2) {
        // A fee the line's own sums do not explain (Adyen's fees are not checked against a price).
        fee += 7;
        planted.FEE_MISMATCH += 1;
      }
      line(['BenchCompany', 'BenchMerchant', psp, `${token}:authorize`, 'visa', at, 'UTC', 'Settled', `99${String(g).padStart(14, '0')}`, 'BRL', '', money(gross), '1', 'BRL', '', money(net), '', money(markup + (fee - markup - scheme - interchange)), money(scheme), money(interchange), 'visa', '', '1', '', '', '', '', '', '', '']);
    }
    if (g % refundEvery === 0) {
      const refundId = g / refundEvery;
      line(['BenchCompany', 'BenchMerchant', psp, `${token}:authorize`, 'visa', at, 'UTC', 'Refunded', `77${String(g).padStart(14, '0')}`, 'BRL', money(refundOf(g)), '', '1', 'BRL', money(refundOf(g)), '', '', '', '', '', 'visa', `${token}:refund:${refundId}`, '1', '', '', '', '', '', '', '']);
    }
    if (g % 10_000 === 3) {
      line(['BenchCompany', 'BenchMerchant', `66${String(g).padStart(14, '0')}`, `elsewhere-${g}`, 'visa', at, 'UTC', 'Settled', '', 'BRL', '', '10.00', '1', 'BRL', '', '10.00', '', '', '', '', 'visa', '', '1', '', '', '', '', '', '', '']);
      planted.MISSING_IN_COLIBRI += 1;
    }
    if (text.length > 1 << 20) {
      if (!out.write(text)) await once(out, 'drain');
      text = '';
    }
  }
  out.end(text);
  await once(out, 'finish');
  return { lines, planted };
}

async function seed(client: pg.Client, merchant: { merchant_id: string; contract_id: string }, now: number): Promise<void> {
  const nowIso = new Date(now).toISOString();
  const dayStart = new Date(Math.floor(now / DAY) * DAY).toISOString();
  // The same captured time as capturedAt(), in SQL.
  const captured = `($3::timestamptz - (8 + g % 7) * interval '1 day' + (g % 86000) * interval '1 second')`;
  await client.query(
    `insert into payments (payment_token, merchant_id, contract_id, reference_id, method, status, original_amount_minor, original_currency, amount_minor, currency,
                           customer_fees_minor, merchant_fees_minor, fee_rules, installments, delay_capture, captured_minor, authorized_minor, refunded_minor,
                           processor_id, created_at, updated_at, paid_at)
     select md5('bench-' || g)::uuid, $1, $2, 'order-' || g, 'CREDITCARD', case when g % ${refundEvery} = 0 then 'PARTIALLY_REFUNDED' else 'PAID' end,
            1000 + g % 100000, 'BRL', 1000 + g % 100000, 'BRL', 0, 39, '[]', 1, false, 1000 + g % 100000, 1000 + g % 100000,
            case when g % ${refundEvery} = 0 then 100 + g % 500 else 0 end,
            '88' || lpad(g::text, 14, '0'), ${captured}, $4, ${captured}
       from generate_series(1, $5::integer) g`,
    [merchant.merchant_id, merchant.contract_id, dayStart, nowIso, paymentCount],
  );
  await client.query(
    `insert into connector_operations (connector, reference, merchant_id, provider_reference, result, updated_at)
     select 'adyen', md5('bench-' || g)::uuid::text || ':authorize', $1, '88' || lpad(g::text, 14, '0'),
            jsonb_build_object('status', 'APPROVED', 'processorId', '88' || lpad(g::text, 14, '0')), $2
       from generate_series(1, $3::integer) g`,
    [merchant.merchant_id, nowIso, paymentCount],
  );
  // Statistics before the refunds reference them: without any, the planner may answer each foreign-key check
  // by a scan of another index of the merchant's payments (autovacuum would analyse them in time; a bulk load
  // is faster than autovacuum).
  await client.query('analyze payments');
  await client.query(
    `insert into refunds (refund_id, payment_token, merchant_id, amount_minor, currency, status, processor_id, created_at, updated_at, completed_at)
     select g / ${refundEvery}, md5('bench-' || g)::uuid, $1, 100 + g % 500, 'BRL', 'COMPLETED', '77' || lpad(g::text, 14, '0'), ${captured}, $2, ${captured}
       from generate_series(${refundEvery}, $4::integer, ${refundEvery}) g`,
    [merchant.merchant_id, nowIso, dayStart, paymentCount],
  );
  await client.query(
    `insert into connector_operations (connector, reference, merchant_id, provider_reference, result, updated_at)
     select 'adyen', md5('bench-' || g)::uuid::text || ':refund:' || (g / ${refundEvery})::text, $1, '77' || lpad(g::text, 14, '0'),
            jsonb_build_object('status', 'APPROVED', 'processorId', '77' || lpad(g::text, 14, '0')), $2
       from generate_series(${refundEvery}, $3::integer, ${refundEvery}) g`,
    [merchant.merchant_id, nowIso, paymentCount],
  );
  await client.query(`select setval('refunds_refund_id_seq', (select max(refund_id) from refunds))`);
  await client.query('analyze');
}

/** Sends the file as the body of one request, streamed from disk; answers the status and the body. */
function upload(url: string, adminToken: string, file: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'text/csv', authorization: `Bearer ${adminToken}`, 'content-length': statSync(file).size } },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    createReadStream(file).pipe(req);
  });
}

const dir = mkdtempSync(join(tmpdir(), 'colibri-bench-recon-'));
const file = join(dir, 'settlement_detail_report_batch_1.csv');
const database = await createBenchDatabase(pgUrl);
const service = await startColibri(18_120, { DATABASE_URL: database.url });
const client = new pg.Client({ connectionString: database.url });
try {
  await client.connect();
  const pid = service.child.pid;
  if (pid === undefined) throw new Error('the service has no pid');
  const now = Date.now();
  const merchant = (await (
    await fetch(`${service.url}/admin/merchants`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${service.adminToken}` }, body: JSON.stringify({ name: 'Bench' }) })
  ).json()) as { merchant_id: string; contract_id: string };

  let started = Date.now();
  await seed(client, merchant, now);
  console.log(`seeded ${paymentCount} payments and ${Math.floor(paymentCount / refundEvery)} refunds in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  started = Date.now();
  const { lines, planted } = await writeReport(file, now);
  const bytes = statSync(file).size;
  console.log(`wrote a report of ${lines} lines (${(bytes / 1e6).toFixed(0)} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s; planted ${JSON.stringify(planted)}`);

  const idleMb = memoryKb(pid, 'VmRSS') / 1024;
  const databaseName = new URL(database.url).pathname.slice(1);
  const cpuBefore = cpuSeconds(pid);
  const backendsBefore = await backendCpu(client, databaseName);
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  started = Date.now();
  const first = await upload(`${service.url}/admin/reconciliation/imports?processor=adyen`, service.adminToken, file);
  const seconds = (Date.now() - started) / 1000;
  const cpu = cpuSeconds(pid) - cpuBefore;
  // Backends that ended during the import are not counted: the service's pool keeps its connections.
  let databaseCpu = 0;
  for (const [backend, after] of await backendCpu(client, databaseName)) databaseCpu += after - (backendsBefore.get(backend) ?? 0);
  const peakMb = memoryKb(pid, 'VmHWM') / 1024;
  if (first.status !== 201) throw new Error(`the import answered ${first.status}: ${first.body}`);
  const run = JSON.parse(first.body) as Record<string, number | string>;
  const expected = {
    lines,
    matched: lines - planted.AMOUNT_MISMATCH - planted.FEE_MISMATCH - planted.MISSING_IN_COLIBRI,
    mismatched: planted.AMOUNT_MISMATCH + planted.FEE_MISMATCH,
    missing_in_colibri: planted.MISSING_IN_COLIBRI,
    missing_at_processor: planted.MISSING_AT_PROCESSOR,
  };
  for (const [key, value] of Object.entries(expected)) if (run[key] !== value) throw new Error(`${key}: ${run[key]}, expected ${value} (${first.body})`);

  started = Date.now();
  const again = await upload(`${service.url}/admin/reconciliation/imports?processor=adyen`, service.adminToken, file);
  const againSeconds = (Date.now() - started) / 1000;
  if (again.status !== 200 || JSON.parse(again.body).run_id !== run.run_id) throw new Error(`the repeated import answered ${again.status}: ${again.body}`);
  const stored = await client.query<{ n: string }>('select count(*) as n from reconciliation_runs');
  if (stored.rows[0]?.n !== '1') throw new Error(`${stored.rows[0]?.n} runs stored`);

  console.log(`\nlines=${lines} node=${process.version} service RSS at start ${idleMb.toFixed(0)} MB, load average before the import ${load}\n`);
  console.log('| import | lines | seconds | lines/s (≥ 100,000) | MB/s | service CPU s | PostgreSQL CPU s | service peak RSS MB (< 300) | target |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  const verdict = lines / seconds >= 100_000 && peakMb < 300 ? 'PASS' : 'BELOW';
  console.log(`| first (${run.matched} matched, ${run.mismatched} mismatched, ${run.missing_in_colibri} missing in Colibri, ${run.missing_at_processor} missing at the processor) | ${lines} | ${seconds.toFixed(2)} | ${Math.round(lines / seconds).toLocaleString('en')} | ${(bytes / 1e6 / seconds).toFixed(0)} | ${cpu.toFixed(1)} | ${databaseCpu.toFixed(1)} | ${peakMb.toFixed(0)} | ${verdict} |`);
  console.log(`| the same file again (answers the first run) | ${lines} | ${againSeconds.toFixed(2)} | ${Math.round(lines / againSeconds).toLocaleString('en')} | ${(bytes / 1e6 / againSeconds).toFixed(0)} | | | ${(memoryKb(pid, 'VmHWM') / 1024).toFixed(0)} | |`);
} finally {
  await client.end().catch(() => undefined);
  await service.stop();
  if (keep) console.log(`kept for study (BENCH_KEEP): database ${database.url}, report ${file}`);
  else {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
