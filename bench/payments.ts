/**
 * sendPayment throughput and p99 against pgbench's built-in TPC-B-like script at the same client count,
 * in the same run, on the same PostgreSQL; then sendPayment on PGlite. Target: ≥ 0.5× pgbench's tps.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/payments.ts
 *   (BENCH_CONNECTIONS=10 BENCH_SECONDS=10 by default; the simulator's latency is set to 0 ms so the
 *   figure is Colibri's own cost, not the simulated network's.)
 *
 * Every payment is authorised by a job after its response; on PostgreSQL the benchmark also waits for
 * the queue to drain and reports payments settled per second over load and drain together, so a figure
 * that leaves work behind cannot pass for throughput. By default the jobs run in the service process
 * (`colibri serve`); BENCH_TOPOLOGY=split runs them in a separate `colibri worker` process instead.
 *
 * BENCH_ROUNDS (3) rounds each run pgbench and then Colibri on a fresh database, back to back, so both
 * meet the same machine load; the table gives medians over the rounds, and each ratio is the median of
 * the rounds' ratios.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createBenchDatabase, drive, median, printTable, startColibri, startWorker, type Figure } from './lib';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const split = process.env.BENCH_TOPOLOGY === 'split';
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

async function json(url: string, init: RequestInit & { token?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(init.headers as Record<string, string>) };
  if (init.token) headers['x-auth-token'] = init.token;
  const response = await fetch(url, { ...init, headers });
  return (await response.json()) as Record<string, string>;
}

async function measureSendPayment(engine: 'postgres' | 'pglite'): Promise<Figure> {
  const database = engine === 'postgres' ? await createBenchDatabase(pgUrl) : undefined;
  // One data directory for both processes: in sandbox mode the card encryption key is kept there.
  const env = { COLIBRI_SANDBOX_DELAY_MS: '0', COLIBRI_DATA_DIR: mkdtempSync(join(tmpdir(), 'colibri-bench-')), ...(database ? { DATABASE_URL: database.url } : {}) };
  const splitWorker = split && database;
  const service = await startColibri(18_201, { ...env, ...(splitWorker || process.env.BENCH_WORKERS_OFF ? { COLIBRI_WORKERS: 'off' } : {}) });
  const worker = splitWorker ? startWorker(env) : undefined;
  try {
    const merchant = await json(`${service.url}/admin/merchants`, { method: 'POST', body: JSON.stringify({ name: 'Bench' }), headers: { authorization: `Bearer ${service.adminToken}` } });
    const { token } = await json(`${service.url}/auth`, { method: 'POST', body: JSON.stringify({ apiKey: merchant.api_key, apiSecret: merchant.api_secret }) });
    const person = await json(`${service.url}/checkout/person`, { method: 'POST', token, body: JSON.stringify({ name: 'Bench', email: 'b@example.com', tax_id: '52998224725', tax_id_type: 'CPF' }) });
    const card = await json(`${service.url}/checkout/card`, {
      method: 'POST',
      token,
      body: JSON.stringify({ public_person_id: person.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'BENCH' }),
    });
    const body = JSON.stringify({
      contract_id: merchant.contract_id,
      reference_id: 'bench',
      public_person_id: person.public_person_id,
      public_card_id: card.public_card_id,
      payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 },
    });
    const name = `${engine}${splitWorker ? ' (serve + worker)' : ''}: POST /checkout/sendPayment`;
    const figure = await drive({ name, url: `${service.url}/checkout/sendPayment`, method: 'POST', headers: { 'content-type': 'application/json', 'x-auth-token': token as string }, body }, connections, seconds);
    if (database && !process.env.BENCH_WORKERS_OFF) await reportSettled(database.url, figure);
    return figure;
  } finally {
    await worker?.stop();
    await service.stop();
    await database?.drop();
  }
}

/** Waits until no payment is PROCESSING and prints payments settled per second over load and drain. */
async function reportSettled(url: string, figure: Figure): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const drainStart = Date.now();
    let processing = Infinity;
    while (processing > 0 && Date.now() - drainStart < 120_000) {
      processing = Number((await client.query(`select count(*) from payments where status = 'PROCESSING'`)).rows[0].count);
      if (processing > 0) await new Promise((r) => setTimeout(r, 100));
    }
    const drainSeconds = (Date.now() - drainStart) / 1000;
    const { rows } = await client.query(`select status, count(*)::int as n from payments group by status order by status`);
    const settled = rows.filter((r) => r.status !== 'PROCESSING').reduce((sum, r) => sum + r.n, 0);
    const perSecond = settled / (seconds + drainSeconds);
    console.log(`${figure.name}: ${settled} payments settled (${rows.map((r) => `${r.status} ${r.n}`).join(', ')}), queue drained ${drainSeconds.toFixed(1)} s after the load: ${perSecond.toFixed(0)} settled/s`);
    figure.settledPerSecond = perSecond;
  } finally {
    await client.end();
  }
}

function measurePgbench(): Figure & { latencyAverageMs: number } {
  const url = new URL(pgUrl);
  const scratch = `colibri_pgbench_${process.pid}`;
  const base = ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')];
  execFileSync('psql', [...base, '-d', url.pathname.slice(1) || 'postgres', '-qc', `create database ${scratch}`]);
  try {
    execFileSync('pgbench', [...base, '-i', '-q', '-s', '1', scratch], { stdio: 'ignore' });
    const out = execFileSync('pgbench', [...base, '-c', String(connections), '-j', '2', '-T', String(seconds), '-r', scratch], { encoding: 'utf8' });
    const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? 0);
    const latency = Number(/latency average = ([\d.]+) ms/.exec(out)?.[1] ?? 0);
    return { name: `pgbench tpcb-like (-c ${connections})`, requestsPerSecond: tps, p99Ms: Number.NaN, non2xx: 0, latencyAverageMs: latency };
  } finally {
    execFileSync('psql', [...base, '-d', url.pathname.slice(1) || 'postgres', '-qc', `drop database if exists ${scratch} with (force)`]);
  }
}

console.log(`connections=${connections} duration=${seconds}s rounds=${rounds} node=${process.version}\n`);
const measured: { pgbench: ReturnType<typeof measurePgbench>; colibri: Figure }[] = [];
for (let round = 1; round <= rounds; round++) {
  const pgbench = measurePgbench();
  const colibri = await measureSendPayment('postgres');
  measured.push({ pgbench, colibri });
  const settled = colibri.settledPerSecond ?? Number.NaN;
  console.log(
    `round ${round}: pgbench ${pgbench.requestsPerSecond.toFixed(0)} tps; sendPayment ${colibri.requestsPerSecond.toFixed(0)}/s ` +
      `(${(colibri.requestsPerSecond / pgbench.requestsPerSecond).toFixed(2)}x), settled ${settled.toFixed(0)}/s (${(settled / pgbench.requestsPerSecond).toFixed(2)}x)\n`,
  );
}
const onPglite = await measureSendPayment('pglite');

const middle = (pick: (r: (typeof measured)[number]) => number) => median(measured.map(pick));
const pgbenchTps = middle((r) => r.pgbench.requestsPerSecond);
const sendName = measured[0]?.colibri.name ?? 'postgres: POST /checkout/sendPayment';
printTable([
  { name: `pgbench tpcb-like (-c ${connections})`, requestsPerSecond: pgbenchTps, p99Ms: Number.NaN, non2xx: 0 },
  {
    name: sendName,
    requestsPerSecond: middle((r) => r.colibri.requestsPerSecond),
    p99Ms: middle((r) => r.colibri.p99Ms),
    non2xx: measured.reduce((sum, r) => sum + r.colibri.non2xx, 0),
    ratio: middle((r) => r.colibri.requestsPerSecond / r.pgbench.requestsPerSecond),
  },
  ...(measured.every((r) => r.colibri.settledPerSecond !== undefined)
    ? [
        {
          name: `${sendName.split(':')[0]}: payments settled per second (load + drain)`,
          requestsPerSecond: middle((r) => r.colibri.settledPerSecond ?? Number.NaN),
          p99Ms: Number.NaN,
          non2xx: 0,
          ratio: middle((r) => (r.colibri.settledPerSecond ?? Number.NaN) / r.pgbench.requestsPerSecond),
        },
      ]
    : []),
  { ...onPglite, ratio: onPglite.requestsPerSecond / pgbenchTps },
]);
console.log(`\n(medians over ${rounds} rounds; pgbench prints no p99, its median average latency was ${middle((r) => r.pgbench.latencyAverageMs)} ms; PGlite's ratio is against the median pgbench)`);
