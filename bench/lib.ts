import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

/** Shared pieces of the benchmarks: start processes, create databases, drive load, print ratios. */

export const ROOT = new URL('..', import.meta.url).pathname;

export interface Started {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function waitFor(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${url}`);
}

function stopper(child: ChildProcess) {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
}

export async function startHelloWorld(port: number): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/hello-world.ts')], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/`, child);
  return { url, child, stop: stopper(child) };
}

export async function startColibri(port: number, env: Record<string, string>): Promise<Started & { adminToken: string }> {
  const adminToken = `adm_bench_${Date.now()}`;
  // BENCH_NODE_ARGS passes flags to the service's node, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof';
  // BENCH_SERVICE_STDOUT names a file for its standard output (V8's --trace-opt and --trace-deopt write there).
  const stdout = process.env.BENCH_SERVICE_STDOUT ? openSync(process.env.BENCH_SERVICE_STDOUT, 'w') : 'ignore';
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, 'packages/server/bin/colibri.js'), 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      COLIBRI_DATA_DIR: mkdtempSync(join(tmpdir(), 'colibri-bench-')),
      COLIBRI_ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      COLIBRI_AUTH_SUCCESSES_PER_KEY: '10000000',
      COLIBRI_AUTH_FAILURES_PER_ADDRESS: '1000000',
      ...env,
    },
    stdio: ['ignore', stdout, 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`, child);
  return { url, child, adminToken, stop: stopper(child) };
}

/**
 * `colibri worker` (jobs and callbacks only) as a child process on the given database, once it has
 * started: a load begun before would count the worker's start in its payments' time to a final status.
 */
export async function startWorker(env: Record<string, string>): Promise<Pick<Started, 'child' | 'stop'>> {
  // BENCH_NODE_ARGS reaches the worker too (startColibri), so both halves of the split topology can be profiled.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, 'packages/server/bin/colibri.js'), 'worker'], {
    env: { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.once('exit', (code) => reject(new Error(`colibri worker exited with ${code} before it started`)));
    child.stdout.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-10_000);
      if (seen.includes('"worker started"')) resolve();
    });
  });
  // Its later log lines are read and dropped, so a full pipe never holds the worker up.
  child.stdout.resume();
  return { child, stop: stopper(child) };
}

/** A fresh PostgreSQL database for one benchmark run. */
export async function createBenchDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `colibri_bench_${process.pid}_${Date.now()}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface Load {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface Figure {
  name: string;
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
  /** Work completed per second including what the load left queued (bench/payments.ts). */
  settledPerSecond?: number;
}

export async function drive(load: Load, connections: number, durationSeconds: number): Promise<Figure> {
  const result = await autocannon({
    url: load.url,
    method: load.method ?? 'GET',
    headers: load.headers,
    body: load.body,
    connections,
    duration: durationSeconds,
  });
  return { name: load.name, requestsPerSecond: result.requests.average, p99Ms: result.latency.p99, non2xx: result.non2xx };
}

/** The middle value (the upper middle of an even count). */
/** A JSON call to Colibri: a JSON body, the access token as X-Auth-Token when given, the JSON answer. */
export async function json(url: string, init: RequestInit & { token?: string } = {}): Promise<Record<string, string>> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(init.headers as Record<string, string>) };
  if (init.token) headers['x-auth-token'] = init.token;
  const response = await fetch(url, { ...init, headers });
  return (await response.json()) as Record<string, string>;
}

export const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

export function printTable(rows: (Figure & { ratio?: number })[]): void {
  console.log('| load | requests/s | p99 ms | non-2xx | ratio to baseline |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.requestsPerSecond.toFixed(0)} | ${r.p99Ms.toFixed(1)} | ${r.non2xx} | ${r.ratio === undefined ? '1.00 (baseline)' : r.ratio.toFixed(2)} |`);
  }
}

/**
 * One pgbench run on a scratch database (`-j 2`) created on the server of `adminUrl` and dropped after it:
 * the built-in TPC-B-like script, or with `selectOnly` the select-only script (`-S`). `scale` is pgbench's
 * `-s` (1 by default): TPC-B-like updates one of `scale` branch rows per transaction, so below the client
 * count its clients queue for the same rows; pgbench's documentation advises a scale at least the client count.
 */
export async function pgbench(
  adminUrl: string,
  options: { connections: number; seconds: number; selectOnly?: boolean; scale?: number },
): Promise<Figure & { latencyAverageMs: number }> {
  const { execFileSync } = await import('node:child_process');
  const url = new URL(adminUrl);
  const scratch = `colibri_pgbench_${process.pid}_${Date.now()}`;
  const base = ['-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username || 'postgres')];
  const adminDb = url.pathname.slice(1) || 'postgres';
  execFileSync('psql', [...base, '-d', adminDb, '-qc', `create database ${scratch}`]);
  try {
    const scale = options.scale ?? 1;
    execFileSync('pgbench', [...base, '-i', '-q', '-s', String(scale), scratch], { stdio: 'ignore' });
    const args = [...base, '-c', String(options.connections), '-j', String(Math.min(2, options.connections)), '-T', String(options.seconds), ...(options.selectOnly ? ['-S'] : []), scratch];
    const out = execFileSync('pgbench', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? 0);
    const latency = Number(/latency average = ([\d.]+) ms/.exec(out)?.[1] ?? 0);
    const script = options.selectOnly ? 'select-only (-S)' : 'tpcb-like';
    return { name: `pgbench ${script} (-c ${options.connections}, scale ${scale})`, requestsPerSecond: tps, p99Ms: Number.NaN, non2xx: 0, latencyAverageMs: latency };
  } finally {
    execFileSync('psql', [...base, '-d', adminDb, '-qc', `drop database if exists ${scratch} with (force)`]);
  }
}

/** CPU seconds (user + system) that each process has used so far, from /proc (Linux). */
export function processCpuSeconds(pids: readonly number[]): number {
  const ticksPerSecond = 100; // USER_HZ, 100 on every Linux architecture Node runs on
  let ticks = 0;
  for (const pid of pids) {
    try {
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // the process has ended: its time is no longer counted
    }
  }
  return ticks / ticksPerSecond;
}

/** CPU seconds used so far by each PostgreSQL backend of the client's database (the client's own excepted), by process id. */
export async function backendCpuSeconds(client: pg.Client): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  return new Map(rows.map(({ pid }) => [pid, processCpuSeconds([pid])]));
}

/**
 * The CPU seconds the client database's backends use from now on, read every second: a backend that
 * ends (the pool replaces connections over a long run) keeps what it had used at its last reading,
 * where two readings at the start and the end alone would lose all of it.
 * Answers once the first reading is taken.
 * @example const cpu = await trackBackendCpu(client); …; const seconds = await cpu.stop();
 */
export async function trackBackendCpu(client: pg.Client): Promise<{ stop(): Promise<number> }> {
  const seen = new Map<number, { first: number; last: number }>();
  let reading: Promise<void> = Promise.resolve();
  const read = (initial: boolean) =>
    (reading = reading.then(async () => {
      for (const [pid, seconds] of await backendCpuSeconds(client)) {
        const known = seen.get(pid);
        if (known) known.last = seconds;
        else seen.set(pid, { first: initial ? seconds : 0, last: seconds });
      }
    }));
  await read(true);
  const timer = setInterval(() => void read(false), 1000);
  return {
    async stop() {
      clearInterval(timer);
      await read(false);
      return [...seen.values()].reduce((sum, { first, last }) => sum + last - first, 0);
    },
  };
}

/** PostgreSQL's WAL counters (pg_stat_wal, the whole cluster), to take two readings' difference. */
export async function walCounters(client: pg.Client): Promise<{ records: number; fpi: number; bytes: number }> {
  const { rows } = await client.query<{ records: string; fpi: string; bytes: string }>('select wal_records as records, wal_fpi as fpi, wal_bytes as bytes from pg_stat_wal');
  const row = rows[0];
  return { records: Number(row?.records ?? 0), fpi: Number(row?.fpi ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/** The machine's busy and total CPU seconds so far, over every core (/proc/stat). */
export function machineCpuSeconds(): { busy: number; total: number } {
  const [, ...values] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = values.map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  return { busy: busy / 100, total: (busy + idle! + iowait!) / 100 };
}

/** What settlementSql answers. */
export interface SettlementRow {
  accepted: number;
  unsettled: number;
  settled: number;
  last_final_ms: number | null;
  p99_ms: number | null;
}

/**
 * Settlement figures of the payments that `where` selects (all of them by default), from the payments
 * and their history: how many were accepted, how many are still PROCESSING, how many reached a final
 * status, the last of those times and the p99 from acceptance to final. The same SQL on both engines.
 * @example (await client.query<SettlementRow>(settlementSql("where reference_id = 'bench'"))).rows[0];
 */
export function settlementSql(where = ''): string {
  return `
  with load as (select payment_token, status, created_at from payments ${where}),
  final as (
    select l.payment_token, l.created_at, min(h.at) as final_at
    from load l join payment_status_history h on h.payment_token = l.payment_token
    where h.status in ('PAID', 'DECLINED', 'ERROR', 'PRE_AUTHORIZED', 'CANCELED')
    group by l.payment_token, l.created_at
  )
  select
    (select count(*) from load)::int as accepted,
    (select count(*) from load where status = 'PROCESSING')::int as unsettled,
    (select count(*) from final)::int as settled,
    (select extract(epoch from max(final_at)) * 1000 from final)::float8 as last_final_ms,
    (select percentile_cont(0.99) within group (order by extract(epoch from (final_at - created_at)) * 1000) from final)::float8 as p99_ms`;
}
