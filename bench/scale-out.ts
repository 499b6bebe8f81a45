/**
 * sendPayment throughput through HAProxy with one and with two API processes (COLIBRI_WORKERS=off) on one
 * PostgreSQL, with one `colibri worker` settling the payments. Needs HAProxy (`apt-get install haproxy`).
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/scale-out.ts
 *   (BENCH_CONNECTIONS=20 BENCH_SECONDS=10 by default; the simulator's latency is 0 ms.)
 *
 * Each figure is measured on the same database, one after the other: first with one API process behind
 * the balancer, then with the second added. The ratio says how much a second process adds on this
 * machine; it cannot exceed what the machine's cores leave once PostgreSQL, the worker, HAProxy and the
 * load generator have theirs (docs/performance.md records the machine).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBenchDatabase, drive, printTable, startColibri, startWorker, type Figure } from './lib';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
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

async function json(url: string, init: RequestInit & { token?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(init.headers as Record<string, string>) };
  if (init.token) headers['x-auth-token'] = init.token;
  const response = await fetch(url, { ...init, headers });
  return (await response.json()) as Record<string, string>;
}

const database = await createBenchDatabase(pgUrl);
const adminToken = `adm_bench_${randomBytes(12).toString('hex')}`;
const env = {
  DATABASE_URL: database.url,
  COLIBRI_DATA_DIR: mkdtempSync(join(tmpdir(), 'colibri-bench-')),
  COLIBRI_ADMIN_TOKEN: adminToken,
  COLIBRI_MASTER_KEY: randomBytes(32).toString('base64'),
  COLIBRI_SANDBOX_DELAY_MS: '0',
  COLIBRI_WORKERS: 'off',
};
const first = await startColibri(API_PORTS[0]!, env);
const worker = startWorker({ ...env, COLIBRI_WORKERS: 'on' });
let haproxy = startHaproxy([API_PORTS[0]!]);
const started = [first];
const rows: (Figure & { ratio?: number })[] = [];
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
  const load = (name: string) => ({
    name,
    url: `${base}/checkout/sendPayment`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', 'x-auth-token': token! },
    body: JSON.stringify({
      contract_id: merchant.contract_id,
      reference_id: 'bench',
      public_person_id: person.public_person_id,
      public_card_id: card.public_card_id,
      payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 },
    }),
  });
  await drive(load('warm-up'), connections, 2);
  const one = await drive(load('sendPayment, 1 API process'), connections, seconds);
  rows.push(one);
  started.push(await startColibri(API_PORTS[1]!, env));
  await stop(haproxy);
  haproxy = startHaproxy(API_PORTS);
  await balancerReady(base);
  await drive(load('warm-up'), connections, 2);
  const two = await drive(load('sendPayment, 2 API processes'), connections, seconds);
  rows.push({ ...two, ratio: two.requestsPerSecond / one.requestsPerSecond });
  console.log(`\n${cpus().length} cores, ${connections} connections, ${seconds} s per figure, through HAProxy, one worker\n`);
  printTable(rows);
} finally {
  await stop(haproxy);
  await Promise.all([...started.map((s) => s.stop()), worker.stop()]);
  await database.drop();
}
