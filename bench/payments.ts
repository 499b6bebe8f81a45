/**
 * Payments accepted and payments settled, against pgbench's built-in TPC-B-like script at the same
 * client count, in the same run, on the same PostgreSQL; at several simulated processor latencies.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/payments.ts
 *
 * Settings: BENCH_LATENCIES (0,200,1000 ms of sandbox processor latency), BENCH_CONNECTIONS (10),
 * BENCH_SECONDS (10), BENCH_ROUNDS (1; with more, each figure is the median of the rounds), BENCH_PGLITE
 * (200: the latency of the PGlite run; `off` skips it), BENCH_TOPOLOGY=split (jobs in a separate
 * `colibri worker` process).
 *
 * For each latency, one round runs pgbench and then Colibri on a fresh database, back to back, so both
 * meet the same machine load. Colibri's figures count payments, not only answers:
 * - accepted/s: sendPayment answers per second during the load;
 * - settled/s: payments that reached a final status, per second from the start of the load to the last
 *   settlement (the drain included), so work left queued cannot pass for throughput;
 * - drain: how long after the end of the load the last payment settled;
 * - p99 to final: from a payment's acceptance to its final status, over every payment.
 * Each is given as a ratio to pgbench's tps of the same round.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../packages/server/src/db/database';
import { backendCpuSeconds, backendCpuSince, createBenchDatabase, json, median, processCpuSeconds, settlementSql, startColibri, startWorker, type SettlementRow } from './lib';
import autocannon from 'autocannon';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const split = process.env.BENCH_TOPOLOGY === 'split';
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
const latencies = (process.env.BENCH_LATENCIES ?? '0,200,1000').split(',').map(Number);
const pgliteLatency = process.env.BENCH_PGLITE === 'off' ? undefined : Number(process.env.BENCH_PGLITE ?? 200);

/** What one run of Colibri measured. */
interface Settlement {
  acceptedPerSecond: number;
  accepted: number;
  settled: number;
  unsettled: number;
  settledPerSecond: number;
  drainSeconds: number;
  p99ToFinalMs: number;
  non2xx: number;
  /** CPU milliseconds per settled payment over load and drain: the service's processes (the worker's too with BENCH_TOPOLOGY=split), and PostgreSQL's backends serving them. */
  serviceCpuMs: number;
  postgresCpuMs: number;
}

async function measure(engine: 'postgres' | 'pglite', latencyMs: number): Promise<Settlement> {
  const database = engine === 'postgres' ? await createBenchDatabase(pgUrl) : undefined;
  // One data directory for every process: in sandbox mode the card encryption key is kept there, and
  // PGlite's files too.
  const dataDir = mkdtempSync(join(tmpdir(), 'colibri-bench-'));
  const env = { COLIBRI_SANDBOX_DELAY_MS: String(latencyMs), COLIBRI_DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) };
  const splitWorker = split && database;
  const service = await startColibri(18_201, { ...env, ...(splitWorker ? { COLIBRI_WORKERS: 'off' } : {}) });
  const worker = splitWorker ? await startWorker(env) : undefined;
  let stopped = false;
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
    let lastToken = '';
    // CPU is counted from here: the service's process and the PostgreSQL backends of its database.
    const client = database ? new pg.Client({ connectionString: database.url }) : undefined;
    await client?.connect();
    const servicePids = [service.child.pid as number, ...(worker ? [worker.child.pid as number] : [])];
    const cpuBefore = { service: processCpuSeconds(servicePids), postgres: client ? await backendCpuSeconds(client) : new Map<number, number>() };
    const loadStart = Date.now();
    const result = await autocannon({
      url: `${service.url}/checkout/sendPayment`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-token': token as string },
      body,
      connections,
      duration: seconds,
      requests: [{ onResponse: (status: number, text: string) => void (status === 200 && (lastToken = (JSON.parse(text) as { payment_token: string }).payment_token)) }],
    });
    const loadEnd = Date.now();
    // The queue is drained when the last payment accepted has settled (jobs are claimed in order) and,
    // on PostgreSQL, when no payment is PROCESSING; a drain that takes over two minutes is cut short and
    // what is left shows as unsettled.
    const processing = async () => Number((await client?.query(`select count(*) from payments where status = 'PROCESSING'`))?.rows[0].count ?? 0);
    while (Date.now() - loadEnd < 120_000) {
      const last = await json(`${service.url}/transactionDetails/${lastToken}`, { token });
      const status = (last as unknown as { general_info?: { transaction_status?: string } }).general_info?.transaction_status;
      if (status !== 'PROCESSING' && (await processing()) === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const serviceCpu = processCpuSeconds(servicePids) - cpuBefore.service;
    const postgresCpu = client ? backendCpuSince(cpuBefore.postgres, await backendCpuSeconds(client)) : 0;
    let row: SettlementRow;
    if (client) {
      row = (await client.query<SettlementRow>(settlementSql())).rows[0] as SettlementRow;
      await client.end();
    } else {
      // PGlite is the service's own: read it once the service has let go of it.
      await new Promise((r) => setTimeout(r, 2 * latencyMs + 500));
      await worker?.stop();
      await service.stop();
      stopped = true;
      const handle = await openDatabase({ engine: 'pglite', dataDir });
      const { sql } = await import('kysely');
      row = (await sql.raw<SettlementRow>(settlementSql()).execute(handle.db)).rows[0] as SettlementRow;
      await handle.close();
    }
    const lastFinal = row.last_final_ms ?? loadEnd;
    return {
      acceptedPerSecond: result.requests.average,
      accepted: row.accepted,
      settled: row.settled,
      unsettled: row.unsettled,
      settledPerSecond: row.settled / ((lastFinal - loadStart) / 1000),
      drainSeconds: Math.max(0, (lastFinal - loadEnd) / 1000),
      p99ToFinalMs: row.p99_ms ?? Number.NaN,
      non2xx: result.non2xx,
      serviceCpuMs: (serviceCpu * 1000) / Math.max(1, row.settled),
      postgresCpuMs: (postgresCpu * 1000) / Math.max(1, row.settled),
    };
  } finally {
    if (!stopped) {
      await worker?.stop();
      await service.stop();
    }
    await database?.drop();
  }
}

function measurePgbench(): number {
  const url = new URL(pgUrl);
  const scratch = `colibri_pgbench_${process.pid}`;
  const base = ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')];
  execFileSync('psql', [...base, '-d', url.pathname.slice(1) || 'postgres', '-qc', `create database ${scratch}`]);
  try {
    execFileSync('pgbench', [...base, '-i', '-q', '-s', '1', scratch], { stdio: 'ignore' });
    const out = execFileSync('pgbench', [...base, '-c', String(connections), '-j', '2', '-T', String(seconds), scratch], { encoding: 'utf8' });
    return Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? 0);
  } finally {
    execFileSync('psql', [...base, '-d', url.pathname.slice(1) || 'postgres', '-qc', `drop database if exists ${scratch} with (force)`]);
  }
}

function describe(label: string, pgbenchTps: number, s: Settlement): string {
  return (
    `${label}: pgbench ${pgbenchTps.toFixed(0)} tps; accepted ${s.acceptedPerSecond.toFixed(0)}/s (${(s.acceptedPerSecond / pgbenchTps).toFixed(2)}x); ` +
    `settled ${s.settled}/${s.accepted} at ${s.settledPerSecond.toFixed(0)}/s (${(s.settledPerSecond / pgbenchTps).toFixed(2)}x), ${s.unsettled} left PROCESSING; ` +
    `drained ${s.drainSeconds.toFixed(1)} s after the load; p99 acceptance to final ${s.p99ToFinalMs.toFixed(0)} ms; non-2xx ${s.non2xx}; ` +
    `CPU per payment: service ${s.serviceCpuMs.toFixed(2)} ms` + (s.postgresCpuMs > 0 ? `, PostgreSQL ${s.postgresCpuMs.toFixed(2)} ms` : '')
  );
}

console.log(`connections=${connections} duration=${seconds}s rounds=${rounds} latencies=${latencies.join(',')} ms node=${process.version}${split ? ' topology=split' : ''}\n`);
const table: string[] = ['| engine | latency | pgbench tps | accepted/s | ratio | settled/s | ratio | drain s | p99 to final ms |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'];
let pgbenchForPglite = Number.NaN;
for (const latency of latencies) {
  const runs: { tps: number; s: Settlement }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const tps = measurePgbench();
    const s = await measure('postgres', latency);
    runs.push({ tps, s });
    console.log(describe(`postgres, ${latency} ms, round ${round}`, tps, s));
  }
  const mid = (pick: (r: (typeof runs)[number]) => number) => median(runs.map(pick));
  const tps = mid((r) => r.tps);
  if (latency === pgliteLatency) pgbenchForPglite = tps;
  table.push(
    `| postgres | ${latency} | ${tps.toFixed(0)} | ${mid((r) => r.s.acceptedPerSecond).toFixed(0)} | ${mid((r) => r.s.acceptedPerSecond / r.tps).toFixed(2)} | ` +
      `${mid((r) => r.s.settledPerSecond).toFixed(0)} | ${mid((r) => r.s.settledPerSecond / r.tps).toFixed(2)} | ${mid((r) => r.s.drainSeconds).toFixed(1)} | ${mid((r) => r.s.p99ToFinalMs).toFixed(0)} |`,
  );
}
if (pgliteLatency !== undefined) {
  const tps = Number.isNaN(pgbenchForPglite) ? measurePgbench() : pgbenchForPglite;
  const s = await measure('pglite', pgliteLatency);
  console.log(describe(`pglite, ${pgliteLatency} ms`, tps, s));
  table.push(
    `| pglite | ${pgliteLatency} | ${tps.toFixed(0)} | ${s.acceptedPerSecond.toFixed(0)} | ${(s.acceptedPerSecond / tps).toFixed(2)} | ` +
      `${s.settledPerSecond.toFixed(0)} | ${(s.settledPerSecond / tps).toFixed(2)} | ${s.drainSeconds.toFixed(1)} | ${s.p99ToFinalMs.toFixed(0)} |`,
  );
}
console.log(`\n${table.join('\n')}\n\n(ratios against pgbench tpcb-like -c ${connections} of the same round; PGlite's against the PostgreSQL rounds at its latency)`);
