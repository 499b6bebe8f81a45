/**
 * Payments through HAProxy with one and with two API processes (COLIBRI_WORKERS=off) on one PostgreSQL,
 * with one `colibri worker` settling them, and where the machine's CPU went meanwhile. Needs HAProxy
 * (`apt-get install haproxy`) and Linux (/proc).
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/scale-out.ts
 *
 * Settings: BENCH_CONNECTIONS (20), BENCH_SECONDS (10), BENCH_LATENCY (0 ms of sandbox processor latency).
 *
 * Each configuration runs on a fresh database, one after the other in the same run, so the second meets
 * the same machine as the first; one API process is the baseline and two are given as ratios to it. The
 * figures count payments, not only answers:
 * - accepted/s: sendPayment answers per second during the load;
 * - settled/s: payments of the load that reached a final status, per second from the start of the load to
 *   the last settlement (the drain included), so work left queued cannot pass for throughput;
 * - CPU, in cores (CPU seconds per second of load): the API processes, the worker, PostgreSQL's backends
 *   of the benchmark's database, HAProxy, the load generator (this process), the rest of the machine
 *   (other work on it) and what stayed idle. With every core busy, a second API process cannot add
 *   throughput: it takes its CPU from the others.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus, tmpdir } from 'node:os';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { createBenchDatabase, json, machineCpuSeconds, processCpuSeconds, settlementSql, startColibri, startWorker, type SettlementRow } from './lib';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const latencyMs = Number(process.env.BENCH_LATENCY ?? 0);
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const LB_PORT = 18_300;
const API_PORTS = [18_301, 18_302];

function startHaproxy(backends: readonly number[]): ChildProcess {
  const file = join(mkdtempSync(join(tmpdir(), 'colibri-bench-haproxy-')), 'haproxy.cfg');
  writeFileSync(
    file,
    [
      'global',
      '  maxconn 4096',
      '  nbthread 1',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  option http-keep-alive',
      'frontend api',
      `  bind 127.0.0.1:${LB_PORT}`,
      '  default_backend colibri',
      'backend colibri',
      '  balance roundrobin',
      ...backends.map((p, i) => `  server api${i} 127.0.0.1:${p}`),
      '',
    ].join('\n'),
  );
  const check = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' });
  if (check.error || check.status !== 0) throw new Error(`haproxy is missing or refused its configuration: ${check.stderr ?? check.error}`);
  return spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'inherit'] });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** Waits until the balancer answers (HAProxy takes a moment to listen). */
async function balancerReady(base: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('HAProxy did not answer');
}

interface Cpu {
  api: number;
  worker: number;
  postgres: number;
  haproxy: number;
  loadGenerator: number;
  rest: number;
  idle: number;
}

interface Phase {
  processes: number;
  acceptedPerSecond: number;
  accepted: number;
  settled: number;
  settledPerSecond: number;
  drainSeconds: number;
  p99ToFinalMs: number;
  non2xx: number;
  cpu: Cpu;
}

/** PostgreSQL's backends serving the benchmark's database, with the CPU seconds each has used. */
async function backendCpu(client: pg.Client, database: string): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database]);
  return new Map(rows.map((r) => [r.pid, processCpuSeconds([r.pid])]));
}

async function runPhase(processes: number): Promise<Phase> {
  const database = await createBenchDatabase(pgUrl);
  const databaseName = new URL(database.url).pathname.slice(1);
  const adminToken = `adm_bench_${randomBytes(12).toString('hex')}`;
  const env = {
    DATABASE_URL: database.url,
    COLIBRI_DATA_DIR: mkdtempSync(join(tmpdir(), 'colibri-bench-')),
    COLIBRI_ADMIN_TOKEN: adminToken,
    COLIBRI_MASTER_KEY: randomBytes(32).toString('base64'),
    COLIBRI_SANDBOX_DELAY_MS: String(latencyMs),
    COLIBRI_WORKERS: 'off',
  };
  const apis = [];
  for (const port of API_PORTS.slice(0, processes)) apis.push(await startColibri(port, env));
  const worker = await startWorker({ ...env, COLIBRI_WORKERS: 'on' });
  const haproxy = startHaproxy(API_PORTS.slice(0, processes));
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const processing = async () => Number((await client.query(`select count(*) from payments where status = 'PROCESSING'`)).rows[0].count);
  const drain = async () => {
    const since = Date.now();
    while (Date.now() - since < 120_000 && (await processing()) > 0) await new Promise((r) => setTimeout(r, 50));
  };
  try {
    const base = `http://127.0.0.1:${LB_PORT}`;
    await balancerReady(base);
    const merchant = await json(`${base}/admin/merchants`, { method: 'POST', body: JSON.stringify({ name: 'Bench' }), headers: { authorization: `Bearer ${adminToken}` } });
    const { token } = await json(`${base}/auth`, { method: 'POST', body: JSON.stringify({ apiKey: merchant.api_key, apiSecret: merchant.api_secret }) });
    const person = await json(`${base}/checkout/person`, { method: 'POST', token, body: JSON.stringify({ name: 'Bench', email: 'b@example.com', tax_id: '52998224725', tax_id_type: 'CPF' }) });
    const card = await json(`${base}/checkout/card`, {
      method: 'POST',
      token,
      body: JSON.stringify({ public_person_id: person.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'BENCH' }),
    });
    const load = (reference: string, duration: number) =>
      autocannon({
        url: `${base}/checkout/sendPayment`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-token': token! },
        body: JSON.stringify({
          contract_id: merchant.contract_id,
          reference_id: reference,
          public_person_id: person.public_person_id,
          public_card_id: card.public_card_id,
          payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 },
        }),
        connections,
        duration,
      });
    await load('warm-up', 2);
    await drain();
    // The load's payments only (reference `bench`; the warm-up's are apart).

    const pids = { api: apis.map((a) => a.child.pid!), worker: [worker.child.pid!], haproxy: [haproxy.pid!] };
    const before = {
      api: processCpuSeconds(pids.api),
      worker: processCpuSeconds(pids.worker),
      haproxy: processCpuSeconds(pids.haproxy),
      backends: await backendCpu(client, databaseName),
      self: process.cpuUsage(),
      machine: machineCpuSeconds(),
    };
    const loadStart = Date.now();
    const result = await load('bench', seconds);
    const loadEnd = Date.now();
    const after = {
      api: processCpuSeconds(pids.api),
      worker: processCpuSeconds(pids.worker),
      haproxy: processCpuSeconds(pids.haproxy),
      backends: await backendCpu(client, databaseName),
      self: process.cpuUsage(before.self),
      machine: machineCpuSeconds(),
    };
    const window = (loadEnd - loadStart) / 1000;
    // A backend opened during the load used all of its time in it.
    let postgres = 0;
    for (const [pid, used] of after.backends) postgres += used - (before.backends.get(pid) ?? 0);
    const ours = {
      api: after.api - before.api,
      worker: after.worker - before.worker,
      postgres,
      haproxy: after.haproxy - before.haproxy,
      loadGenerator: (after.self.user + after.self.system) / 1e6,
    };
    const busy = after.machine.busy - before.machine.busy;
    const total = after.machine.total - before.machine.total;
    const sum = Object.values(ours).reduce((a, b) => a + b, 0);
    const cpu: Cpu = {
      api: ours.api / window,
      worker: ours.worker / window,
      postgres: ours.postgres / window,
      haproxy: ours.haproxy / window,
      loadGenerator: ours.loadGenerator / window,
      rest: Math.max(0, busy - sum) / window,
      idle: (total - busy) / window,
    };

    await drain();
    // The load's payments only (reference `bench`; the warm-up's are apart).
    const row = (await client.query<SettlementRow>(settlementSql("where reference_id = 'bench'"))).rows[0]!;
    const lastFinal = row.last_final_ms ?? loadEnd;
    return {
      processes,
      acceptedPerSecond: result.requests.average,
      accepted: row.accepted,
      settled: row.settled,
      settledPerSecond: row.settled / ((lastFinal - loadStart) / 1000),
      drainSeconds: Math.max(0, (lastFinal - loadEnd) / 1000),
      p99ToFinalMs: row.p99_ms ?? Number.NaN,
      non2xx: result.non2xx,
      cpu,
    };
  } finally {
    await client.end();
    await stop(haproxy);
    await Promise.all([...apis.map((a) => a.stop()), worker.stop()]);
    await database.drop();
  }
}

const phases: Phase[] = [];
for (const processes of [1, 2]) phases.push(await runPhase(processes));
const [baseline] = phases as [Phase, Phase];
const ratio = (value: number, of: number) => (of > 0 ? (value / of).toFixed(2) : 'n/a');
console.log(
  `\n${cpus().length} cores, ${connections} connections, ${seconds} s of load per configuration, simulator latency ${latencyMs} ms, through HAProxy, one worker\n`,
);
console.log('| API processes | accepted/s | ratio | settled | settled/s | ratio | drain s | p99 to final ms | non-2xx |');
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const p of phases) {
  console.log(
    `| ${p.processes} | ${p.acceptedPerSecond.toFixed(0)} | ${ratio(p.acceptedPerSecond, baseline.acceptedPerSecond)} | ${p.settled}/${p.accepted} | ` +
      `${p.settledPerSecond.toFixed(0)} | ${ratio(p.settledPerSecond, baseline.settledPerSecond)} | ${p.drainSeconds.toFixed(1)} | ${p.p99ToFinalMs.toFixed(0)} | ${p.non2xx} |`,
  );
}
console.log('\nCPU during the load, in cores:\n');
console.log('| API processes | API | worker | PostgreSQL | HAProxy | load generator | rest of the machine | idle |');
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const { processes, cpu } of phases) {
  const f = (v: number) => v.toFixed(2);
  console.log(`| ${processes} | ${f(cpu.api)} | ${f(cpu.worker)} | ${f(cpu.postgres)} | ${f(cpu.haproxy)} | ${f(cpu.loadGenerator)} | ${f(cpu.rest)} | ${f(cpu.idle)} |`);
}
