/**
 * sendPayment throughput and p99 against pgbench's built-in TPC-B-like script at the same client count,
 * in the same run, on the same PostgreSQL; then sendPayment on PGlite. Target: ≥ 0.5× pgbench's tps.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/payments.ts
 *   (BENCH_CONNECTIONS=10 BENCH_SECONDS=10 by default; the simulator's latency is set to 0 ms so the
 *   figure is Colibri's own cost, not the simulated network's.)
 */
import { execFileSync } from 'node:child_process';
import { createBenchDatabase, drive, printTable, startColibri, type Figure } from './lib';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function json(url: string, init: RequestInit & { token?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(init.headers as Record<string, string>) };
  if (init.token) headers['x-auth-token'] = init.token;
  const response = await fetch(url, { ...init, headers });
  return (await response.json()) as Record<string, string>;
}

async function measureSendPayment(engine: 'postgres' | 'pglite'): Promise<Figure> {
  const database = engine === 'postgres' ? await createBenchDatabase(pgUrl) : undefined;
  const service = await startColibri(18_201, { COLIBRI_SANDBOX_DELAY_MS: '0', ...(process.env.BENCH_WORKERS_OFF ? { COLIBRI_WORKERS: 'off' } : {}), ...(database ? { DATABASE_URL: database.url } : {}) });
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
    return await drive({ name: `${engine}: POST /checkout/sendPayment`, url: `${service.url}/checkout/sendPayment`, method: 'POST', headers: { 'content-type': 'application/json', 'x-auth-token': token as string }, body }, connections, seconds);
  } finally {
    await service.stop();
    await database?.drop();
  }
}

function measurePgbench(): Figure {
  const url = new URL(pgUrl);
  const scratch = `colibri_pgbench_${process.pid}`;
  const base = ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')];
  execFileSync('psql', [...base, '-d', url.pathname.slice(1) || 'postgres', '-qc', `create database ${scratch}`]);
  try {
    execFileSync('pgbench', [...base, '-i', '-q', '-s', '1', scratch], { stdio: 'ignore' });
    const out = execFileSync('pgbench', [...base, '-c', String(connections), '-j', '2', '-T', String(seconds), '-r', scratch], { encoding: 'utf8' });
    const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? 0);
    const latency = Number(/latency average = ([\d.]+) ms/.exec(out)?.[1] ?? 0);
    return { name: `pgbench tpcb-like (-c ${connections})`, requestsPerSecond: tps, p99Ms: Number.NaN, non2xx: 0, ...{ latencyAverageMs: latency } };
  } finally {
    execFileSync('psql', [...base, '-d', url.pathname.slice(1) || 'postgres', '-qc', `drop database if exists ${scratch} with (force)`]);
  }
}

console.log(`connections=${connections} duration=${seconds}s node=${process.version}\n`);
const pgbench = measurePgbench();
const onPostgres = await measureSendPayment('postgres');
const onPglite = await measureSendPayment('pglite');
printTable([
  pgbench,
  { ...onPostgres, ratio: onPostgres.requestsPerSecond / pgbench.requestsPerSecond },
  { ...onPglite, ratio: onPglite.requestsPerSecond / pgbench.requestsPerSecond },
]);
console.log('\n(pgbench prints no p99; its average latency was', (pgbench as Figure & { latencyAverageMs: number }).latencyAverageMs, 'ms)');
