/**
 * Payments accepted and payments settled, against pgbench's built-in TPC-B-like script at the same
 * client count, in the same run, on the same PostgreSQL; at several simulated processor latencies.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/payments.ts
 *
 * Settings: BENCH_LATENCIES (0,200,1000 ms of sandbox processor latency), BENCH_CONNECTIONS (16),
 * BENCH_SECONDS (10), BENCH_ROUNDS (1; with more, each figure is the median of the rounds), BENCH_PGLITE
 * (200: the latency of the PGlite run; `off` skips it), BENCH_TOPOLOGY=split (jobs in a separate
 * `colibri worker` process, whose share of the service's CPU is printed apart), BENCH_PGBENCH_SCALE (pgbench's `-s` for the baseline; max(BENCH_CONNECTIONS, 10)),
 * BENCH_WARMUP_SECONDS (5: load before the measured load, see below), BENCH_RATE (unset: as fast as the connections
 * go; a number: sendPayment requests a second in all, to compare two versions' CPU per payment at one
 * load, where throughput's feedback on batch sizes cannot blur it; the ratios then say nothing). It ends with issue 35's targets, each
 * PASS, BELOW or NOT RUN (bench/targets.ts).
 *
 * The baseline: pgbench's TPC-B-like transaction updates one of `scale` branch rows, so at scale 1 every
 * pgbench client waits for the same row and its tps is held down by that lock, not by the machine; pgbench's
 * documentation advises a scale at least the client count. Each round runs it twice, each on a fresh scratch
 * database: at scale 1 (the old, contended baseline, kept for comparison with earlier figures) and at
 * BENCH_PGBENCH_SCALE (the fair one); every ratio is given against both.
 *
 * For each latency, one round runs pgbench (scale 1, then the fair scale) and then Colibri on a fresh
 * database, back to back, so all meet the same machine load. Colibri's figures count payments, not only answers:
 * - accepted/s: sendPayment answers per second during the load, and their answer time (median and p99);
 * - settled/s: payments that reached a final status, per second from the start of the load to the last
 *   settlement (the drain included), so work left queued cannot pass for throughput;
 * - drain: how long after the end of the load the last payment settled;
 * - p99 to final: from a payment's acceptance to its final status, over every payment.
 * - CPU per settled payment over load and drain, from /proc: the service's processes, PostgreSQL's backends
 *   serving them (read every second, so a backend the pool replaces keeps its time), and this process (the
 *   load generator, which also polls for the drain), apart;
 * - WAL per settled payment (pg_stat_wal: records, bytes, full-page images), and after the run the rows and
 *   index entries PostgreSQL wrote per payment, by table.
 * Each rate is given as a ratio to pgbench's tps of the same round, at both scales.
 *
 * Colibri is measured warm, as it runs in production: the same load runs for BENCH_WARMUP_SECONDS first
 * (its payments carry reference_id `warmup`, settle before the measured load starts and are left out
 * of every figure). A service measured cold spends a fifth of its CPU in V8's optimising compiler
 * during a 10 s load (perf, 2026-11-28), which a service running for days has long paid; pgbench, a C
 * program, has nothing to warm. BENCH_WARMUP_SECONDS=0 measures cold, as the figures before 2026-11-28 were.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../packages/server/src/db/database';
import { createBenchDatabase, trackBackendCpu, walCounters, json, median, pgbench, processCpuSeconds, settlementSql, startColibri, startWorker, type SettlementRow } from './lib';
import autocannon from 'autocannon';
import { Targets } from './targets';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
// pgbench's rate is steady after seconds; a 10-minute memory run does not need 20 minutes of it first.
const pgbenchSeconds = Math.min(seconds, Number(process.env.BENCH_PGBENCH_SECONDS ?? 60));
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const split = process.env.BENCH_TOPOLOGY === 'split';
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
const latencies = (process.env.BENCH_LATENCIES ?? '0,200,1000').split(',').map(Number);
const pgliteLatency = process.env.BENCH_PGLITE === 'off' ? undefined : Number(process.env.BENCH_PGLITE ?? 200);
const scale = Number(process.env.BENCH_PGBENCH_SCALE ?? Math.max(connections, 10));
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const rate = process.env.BENCH_RATE === undefined ? undefined : Number(process.env.BENCH_RATE);
if (rate !== undefined && !(rate > 0)) throw new Error(`BENCH_RATE must be a positive number, not ${process.env.BENCH_RATE}`);
if (!Number.isInteger(scale) || scale < 1) throw new Error(`BENCH_PGBENCH_SCALE must be a positive integer, not ${process.env.BENCH_PGBENCH_SCALE}`);

/** The payments of the measured load (the warm-up's carry reference_id `warmup`). */
const MEASURED = "where reference_id = 'bench'";

/** What one run of Colibri measured. */
interface Settlement {
  acceptedPerSecond: number;
  accepted: number;
  settled: number;
  unsettled: number;
  settledPerSecond: number;
  drainSeconds: number;
  p99ToFinalMs: number;
  /** sendPayment's answer time as the load generator saw it (autocannon's latency, ms): median and 99th percentile. */
  answerMs: { p50: number; p99: number };
  non2xx: number;
  /** CPU milliseconds per settled payment over load and drain: the service's processes (the worker's too with BENCH_TOPOLOGY=split), and PostgreSQL's backends serving them. */
  serviceCpuMs: number;
  /** Of serviceCpuMs, the worker process's share with BENCH_TOPOLOGY=split (its jobs: authorisations and their answers); undefined otherwise. */
  workerCpuMs: number | undefined;
  postgresCpuMs: number;
  /** PostgreSQL's WAL per settled payment over load and drain (pg_stat_wal: exact, where CPU is not); undefined on PGlite. */
  wal: { records: number; fpi: number; bytes: number } | undefined;
  /** The same for this process, the load generator (autocannon, and the polling of the drain). */
  loadCpuMs: number;
  /** The service's peak resident memory over the load, in MB (its process; the worker's apart with BENCH_TOPOLOGY=split). */
  peakRssMb: number;
  /** Its resident memory at the end of the load against one minute in, in percent; undefined for a load under two minutes. */
  rssGrowthPercent: number | undefined;
}

/** A process's resident memory in MB, from /proc. */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
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
  let renewal: NodeJS.Timeout | undefined;
  try {
    const merchant = await json(`${service.url}/admin/merchants`, { method: 'POST', body: JSON.stringify({ name: 'Bench' }), headers: { authorization: `Bearer ${service.adminToken}` } });
    const signIn = async () => (await json(`${service.url}/auth`, { method: 'POST', body: JSON.stringify({ apiKey: merchant.api_key, apiSecret: merchant.api_secret }) })).token as string;
    let token = await signIn();
    // A token lives 5 minutes: a long run (BENCH_SECONDS=600 for memory) signs in again every 4.
    renewal = setInterval(() => void signIn().then((fresh) => (token = fresh)), 240_000);
    const person = await json(`${service.url}/checkout/person`, { method: 'POST', token, body: JSON.stringify({ name: 'Bench', email: 'b@example.com', tax_id: '52998224725', tax_id_type: 'CPF' }) });
    const card = await json(`${service.url}/checkout/card`, {
      method: 'POST',
      token,
      body: JSON.stringify({ public_person_id: person.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'BENCH' }),
    });
    const bodyOf = (reference: string) =>
      JSON.stringify({
        contract_id: merchant.contract_id,
        reference_id: reference,
        public_person_id: person.public_person_id,
        public_card_id: card.public_card_id,
        payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 },
      });
    const client = database ? new pg.Client({ connectionString: database.url }) : undefined;
    await client?.connect();
    const processing = async () => Number((await client?.query(`select count(*) from payments where status = 'PROCESSING'`))?.rows[0].count ?? 0);
    const load = (reference: string, duration: number, onToken: (token: string) => void = () => undefined) =>
      autocannon({
        url: `${service.url}/checkout/sendPayment`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: bodyOf(reference),
        connections,
        duration,
        ...(rate === undefined ? {} : { overallRate: rate }),
        requests: [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'x-auth-token': token } }), onResponse: (status: number, text: string) => void (status === 200 && onToken((JSON.parse(text) as { payment_token: string }).payment_token)) }],
      });
    /** Waits until the payment `last` is final and, on PostgreSQL, no payment is PROCESSING (at most two minutes). */
    const drain = async (last: string, since: number) => {
      while (Date.now() - since < 120_000) {
        const details = await json(`${service.url}/transactionDetails/${last}`, { token });
        const status = (details as unknown as { general_info?: { transaction_status?: string } }).general_info?.transaction_status;
        if (status !== 'PROCESSING' && (await processing()) === 0) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    if (warmupSeconds > 0) {
      let warmLast = '';
      await load('warmup', warmupSeconds, (t) => (warmLast = t));
      if (warmLast) await drain(warmLast, Date.now());
    }
    let lastToken = '';
    // CPU is counted from here: the service's process and the PostgreSQL backends of its database.
    const servicePids = [service.child.pid as number, ...(worker ? [worker.child.pid as number] : [])];
    const cpuBefore = { service: processCpuSeconds(servicePids), worker: worker ? processCpuSeconds([worker.child.pid as number]) : 0, load: process.cpuUsage() };
    const postgresCpuTracker = client ? await trackBackendCpu(client) : undefined;
    const walBefore = client ? await walCounters(client) : undefined;
    const loadStart = Date.now();
    const servicePid = service.child.pid as number;
    // RSS rises and falls with each major collection, so growth compares peaks, not samples: the
    // highest of the first minute against the highest after it (a leak raises every later peak).
    const rss = { peak: rssMb(servicePid), firstMinutePeak: 0, laterPeak: 0 };
    const sampler = setInterval(() => {
      const now = rssMb(servicePid);
      rss.peak = Math.max(rss.peak, now);
      if (Date.now() - loadStart < 60_000) rss.firstMinutePeak = Math.max(rss.firstMinutePeak, now);
      else rss.laterPeak = Math.max(rss.laterPeak, now);
    }, 1000);
    const result = await load('bench', seconds, (t) => (lastToken = t));
    const loadEnd = Date.now();
    clearInterval(sampler);
    // The queue is drained when the last payment accepted has settled (jobs are claimed in order) and,
    // on PostgreSQL, when no payment is PROCESSING; a drain that takes over two minutes is cut short and
    // what is left shows as unsettled.
    await drain(lastToken, loadEnd);
    const serviceCpu = processCpuSeconds(servicePids) - cpuBefore.service;
    const workerCpu = worker ? processCpuSeconds([worker.child.pid as number]) - cpuBefore.worker : undefined;
    const loadCpuUsage = process.cpuUsage(cpuBefore.load);
    const loadCpu = (loadCpuUsage.user + loadCpuUsage.system) / 1e6;
    const postgresCpu = (await postgresCpuTracker?.stop()) ?? 0;
    const walAfter = client ? await walCounters(client) : undefined;
    let row: SettlementRow;
    if (client) {
      row = (await client.query<SettlementRow>(settlementSql(MEASURED))).rows[0] as SettlementRow;
      // The service's backends report their last counters as they exit.
      await worker?.stop();
      await service.stop();
      stopped = true;
      // The counters cover the warm-up too, so they are divided by every payment settled.
      await printRowsWritten(client, Number((await client.query(`select count(*) from payments where status <> 'PROCESSING'`)).rows[0].count));
      await client.end();
    } else {
      // PGlite is the service's own: read it once the service has let go of it.
      await new Promise((r) => setTimeout(r, 2 * latencyMs + 500));
      await worker?.stop();
      await service.stop();
      stopped = true;
      const handle = await openDatabase({ engine: 'pglite', dataDir });
      const { sql } = await import('kysely');
      row = (await sql.raw<SettlementRow>(settlementSql(MEASURED)).execute(handle.db)).rows[0] as SettlementRow;
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
      answerMs: { p50: result.latency.p50, p99: result.latency.p99 },
      non2xx: result.non2xx,
      serviceCpuMs: (serviceCpu * 1000) / Math.max(1, row.settled),
      workerCpuMs: workerCpu === undefined ? undefined : (workerCpu * 1000) / Math.max(1, row.settled),
      postgresCpuMs: (postgresCpu * 1000) / Math.max(1, row.settled),
      wal:
        walBefore && walAfter
          ? { records: (walAfter.records - walBefore.records) / Math.max(1, row.settled), fpi: (walAfter.fpi - walBefore.fpi) / Math.max(1, row.settled), bytes: (walAfter.bytes - walBefore.bytes) / Math.max(1, row.settled) }
          : undefined,
      loadCpuMs: (loadCpu * 1000) / Math.max(1, row.settled),
      peakRssMb: rss.peak,
      rssGrowthPercent: seconds >= 120 && rss.firstMinutePeak > 0 ? (100 * (rss.laterPeak - rss.firstMinutePeak)) / rss.firstMinutePeak : undefined,
    };
  } finally {
    clearInterval(renewal);
    if (!stopped) {
      await worker?.stop();
      await service.stop();
    }
    await database?.drop();
  }
}

/**
 * What the database wrote per settled payment, by table: rows inserted, updated (how many of them
 * heap-only, touching no index) and deleted, and the index entries that cost, from PostgreSQL's own
 * counters. Exact where CPU figures are not: the same on a quiet machine and a loaded one.
 */
async function printRowsWritten(client: pg.Client, settled: number): Promise<void> {
  // The service has stopped: its backends reported their counters as they exited (give the last a moment).
  await new Promise((r) => setTimeout(r, 500));
  const { rows } = await client.query<{ relname: string; ins: string; upd: string; hot: string; del: string; indexes: string }>(`
    select t.relname, t.n_tup_ins as ins, t.n_tup_upd as upd, t.n_tup_hot_upd as hot, t.n_tup_del as del,
      (select count(*) from pg_index i where i.indrelid = t.relid) as indexes
    from pg_stat_user_tables as t
    where t.n_tup_ins + t.n_tup_upd + t.n_tup_del > 0`);
  const per = (n: string | number) => Number(n) / Math.max(1, settled);
  let entries = 0;
  const parts = rows
    .map((r) => {
      // An insert adds an entry to every index (a partial one only when its predicate holds: an upper bound);
      // an update that is not heap-only adds one to every index too.
      const cost = per(r.ins) * Number(r.indexes) + (per(r.upd) - per(r.hot)) * Number(r.indexes);
      entries += cost;
      return { text: `${r.relname} +${per(r.ins).toFixed(2)} ~${per(r.upd).toFixed(2)} (${per(r.hot).toFixed(2)} HOT) -${per(r.del).toFixed(2)}`, weight: per(r.ins) + per(r.upd) + per(r.del) };
    })
    .filter((p) => p.weight >= 0.01)
    .sort((a, b) => b.weight - a.weight);
  const total = rows.reduce((sum, r) => sum + per(r.ins) + per(r.upd) + per(r.del), 0);
  console.log(`rows written per settled payment: ${total.toFixed(1)} (${parts.map((p) => p.text).join('; ')}); index entries at most ${entries.toFixed(1)}`);
}

/** pgbench's TPC-B-like tps of one round: at the fair scale and at scale 1 (the old baseline). */
interface Baseline {
  fair: number;
  old: number;
}

const fairLabel = `pgbench TPC-B scale ${scale} (fair)`;
const oldLabel = 'scale 1 (old, contended)';

async function measurePgbench(): Promise<Baseline> {
  const old = (await pgbench(pgUrl, { connections, seconds: pgbenchSeconds, scale: 1 })).requestsPerSecond;
  const fair = (await pgbench(pgUrl, { connections, seconds: pgbenchSeconds, scale })).requestsPerSecond;
  return { fair, old };
}

const ratios = (rate: number, b: Baseline) => `${(rate / b.fair).toFixed(2)}x ${fairLabel}, ${(rate / b.old).toFixed(2)}x ${oldLabel}`;

function describe(label: string, b: Baseline, s: Settlement): string {
  return (
    `${label}: ${fairLabel} ${b.fair.toFixed(0)} tps, ${oldLabel} ${b.old.toFixed(0)} tps; ` +
    `accepted ${s.acceptedPerSecond.toFixed(0)}/s (${ratios(s.acceptedPerSecond, b)}), answered in ${s.answerMs.p50} ms (p50) and ${s.answerMs.p99} ms (p99); ` +
    `settled ${s.settled}/${s.accepted} at ${s.settledPerSecond.toFixed(0)}/s (${ratios(s.settledPerSecond, b)}), ${s.unsettled} left PROCESSING; ` +
    `drained ${s.drainSeconds.toFixed(1)} s after the load; p99 acceptance to final ${s.p99ToFinalMs.toFixed(0)} ms; non-2xx ${s.non2xx}; ` +
    `CPU per settled payment: service ${s.serviceCpuMs.toFixed(2)} ms` +
    (s.workerCpuMs !== undefined ? ` (its worker process ${s.workerCpuMs.toFixed(2)} ms)` : '') +
    (s.postgresCpuMs > 0 ? `, PostgreSQL ${s.postgresCpuMs.toFixed(2)} ms` : '') +
    `, load generator ${s.loadCpuMs.toFixed(2)} ms; ` +
    (s.wal ? `WAL per settled payment ${s.wal.records.toFixed(1)} records, ${s.wal.bytes.toFixed(0)} bytes, ${s.wal.fpi.toFixed(2)} full-page images; ` : '') +
    `service peak RSS ${s.peakRssMb.toFixed(0)} MB` +
    (s.rssGrowthPercent !== undefined ? ` (${s.rssGrowthPercent >= 0 ? '+' : ''}${s.rssGrowthPercent.toFixed(1)} %: the peak after the first minute against the first minute's)` : '')
  );
}

console.log(
  `connections=${connections} duration=${seconds}s warm-up=${warmupSeconds}s rounds=${rounds} latencies=${latencies.join(',')} ms pgbench scale=${scale} (and 1) for ${pgbenchSeconds}s node=${process.version}${split ? ' topology=split' : ''}${rate === undefined ? '' : ` rate=${rate}/s (ratios do not apply)`}`,
);
if (scale < connections) console.log(`note: pgbench scale ${scale} is below its ${connections} clients, so the "fair" baseline is contended too`);
console.log('');
const table: string[] = [
  `| engine | latency | pgbench tps, scale ${scale} (fair) | pgbench tps, scale 1 (old) | accepted/s | ratio (fair) | settled/s | ratio (fair) | ratio (old, scale 1) | drain s | p99 to final ms | CPU per payment ms: service, PostgreSQL, load generator |`,
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
];
const cpu = (service: number, postgres: number, load: number) => `${service.toFixed(2)}, ${postgres > 0 ? postgres.toFixed(2) : '—'}, ${load.toFixed(2)}`;
let pgbenchForPglite: Baseline | undefined;
/** The medians each target is judged on, by latency. */
const medians = new Map<number, { accepted: number; settled: number; drain: number; p99: number; cpu: number; peakRssMb: number; growth: number | undefined }>();
let pgliteSettled: number | undefined;
for (const latency of latencies) {
  const runs: { b: Baseline; s: Settlement }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const b = await measurePgbench();
    const s = await measure('postgres', latency);
    runs.push({ b, s });
    console.log(describe(`postgres, ${latency} ms, round ${round}`, b, s));
  }
  const mid = (pick: (r: (typeof runs)[number]) => number) => median(runs.map(pick));
  const b = { fair: mid((r) => r.b.fair), old: mid((r) => r.b.old) };
  if (latency === pgliteLatency) pgbenchForPglite = b;
  const growths = runs.flatMap((r) => (r.s.rssGrowthPercent === undefined ? [] : [r.s.rssGrowthPercent]));
  medians.set(latency, {
    accepted: mid((r) => r.s.acceptedPerSecond / r.b.fair),
    settled: mid((r) => r.s.settledPerSecond / r.b.fair),
    drain: mid((r) => r.s.drainSeconds),
    p99: mid((r) => r.s.p99ToFinalMs),
    cpu: mid((r) => r.s.serviceCpuMs + r.s.postgresCpuMs),
    peakRssMb: Math.max(...runs.map((r) => r.s.peakRssMb)),
    growth: growths.length > 0 ? Math.max(...growths) : undefined,
  });
  table.push(
    `| postgres | ${latency} | ${b.fair.toFixed(0)} | ${b.old.toFixed(0)} | ${mid((r) => r.s.acceptedPerSecond).toFixed(0)} | ${mid((r) => r.s.acceptedPerSecond / r.b.fair).toFixed(2)} | ` +
      `${mid((r) => r.s.settledPerSecond).toFixed(0)} | ${mid((r) => r.s.settledPerSecond / r.b.fair).toFixed(2)} | ${mid((r) => r.s.settledPerSecond / r.b.old).toFixed(2)} | ` +
      `${mid((r) => r.s.drainSeconds).toFixed(1)} | ${mid((r) => r.s.p99ToFinalMs).toFixed(0)} | ${cpu(mid((r) => r.s.serviceCpuMs), mid((r) => r.s.postgresCpuMs), mid((r) => r.s.loadCpuMs))} |`,
  );
}
if (pgliteLatency !== undefined) {
  const b = pgbenchForPglite ?? (await measurePgbench());
  const s = await measure('pglite', pgliteLatency);
  console.log(describe(`pglite, ${pgliteLatency} ms`, b, s));
  pgliteSettled = s.settledPerSecond / b.fair;
  table.push(
    `| pglite | ${pgliteLatency} | ${b.fair.toFixed(0)} | ${b.old.toFixed(0)} | ${s.acceptedPerSecond.toFixed(0)} | ${(s.acceptedPerSecond / b.fair).toFixed(2)} | ` +
      `${s.settledPerSecond.toFixed(0)} | ${(s.settledPerSecond / b.fair).toFixed(2)} | ${(s.settledPerSecond / b.old).toFixed(2)} | ${s.drainSeconds.toFixed(1)} | ${s.p99ToFinalMs.toFixed(0)} | ` +
      `${cpu(s.serviceCpuMs, s.postgresCpuMs, s.loadCpuMs)} |`,
  );
}
console.log(
  `\n${table.join('\n')}\n\n(ratios against pgbench tpcb-like -c ${connections} of the same round: "fair" at scale ${scale}, "old" at scale 1, where every client updates the same branch row; ` +
    `PGlite's against the PostgreSQL rounds at its latency; CPU per settled payment over load and drain, PGlite's engine counted in the service)`,
);

// Issue 35's targets, on the medians above (PostgreSQL unless named; ratios against pgbench TPC-B at the fair scale).
const targets = new Targets('issue 35; memory over a run of 10 minutes: BENCH_SECONDS=600');
const at200 = medians.get(200);
const at1000 = medians.get(1000);
targets.atLeast('accepted / pgbench, 200 ms', at200?.accepted, 0.8, 'x');
targets.atLeast('settled / pgbench, 200 ms', at200?.settled, 0.8, 'x');
targets.atMost('drained after the load, 200 ms', at200?.drain, 5, ' s');
targets.atMost('p99 acceptance to final status, 200 ms', at200?.p99, 400, ' ms');
targets.atMost('CPU per settled payment, service + PostgreSQL, 200 ms', at200?.cpu, 0.5, ' ms');
targets.atLeast('settled / pgbench, 1,000 ms', at1000?.settled, 0.7, 'x');
targets.atLeast('PGlite settled / pgbench', pgliteSettled, 0.35, 'x');
const peaks = [...medians.values()].map((m) => m.peakRssMb);
targets.atMost('service peak RSS', peaks.length > 0 ? Math.max(...peaks) : undefined, 300, ' MB');
const growth = [...medians.values()].flatMap((m) => (m.growth === undefined ? [] : [m.growth]));
targets.atMost('service RSS growth after the first minute', growth.length > 0 ? Math.max(...growth) : undefined, 5, ' %');
targets.print();
