/**
 * Callback benchmark: deliveries per second to a local receiver, and the time from an event's commit
 * to its callback's arrival, on PGlite and (with BENCH_DATABASE_URL or TEST_DATABASE_URL) on a fresh
 * PostgreSQL database. Targets on PostgreSQL: ≥ 3,000 deliveries/s (issue 35; it was 2,000) and p95 ≤ 250 ms.
 *
 *   npx tsx bench/callbacks.ts
 *   BENCH_EVENTS=20000 BENCH_SECONDS=10 BENCH_ENGINES=pglite,postgres BENCH_RATES_POSTGRES=500,1000,2000 \
 *     BENCH_RATES_PGLITE=250,500,1000 COLIBRI_CALLBACK_CONCURRENCY=128 npx tsx bench/callbacks.ts
 *
 * The callback worker runs in this process as `colibri serve` runs it (background.ts); the
 * receiver is a child process (bench/callback-sink.ts) that answers 204 and notes each arrival.
 * 0. Baseline: the same signed POSTs from this process with no database, at the same concurrency.
 * 1. Throughput: BENCH_EVENTS events are written while the worker is stopped, then it is started
 *    and the time until the last callback arrives is measured.
 * 2. Latency: with the worker running, events are committed at each steady rate for
 *    BENCH_SECONDS (one transaction every 10 ms with `recordEvents`, each followed by the wake-up a
 *    domain sends after committing), and each callback's arrival is compared with its event's
 *    `created_at` (the start of its transaction, a millisecond or so before the commit).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../packages/server/src/config';
import type { AppContext } from '../packages/server/src/context';
import { recordEvents } from '../packages/server/src/events/outbox';
import { startBackground } from '../packages/server/src/background';
import { createMerchant } from '../packages/server/src/merchants/create-merchant';
import { buildContext, openConfiguredDatabase } from '../packages/server/src/runtime';
import { migrateToLatest } from '../packages/server/src/db/migrate';
import { createOutboundGuard } from '../packages/server/src/webhooks/outbound-guard';
import { callbackBody } from '../packages/server/src/webhooks/payload';
import { createCallbackAgent, postCallback } from '../packages/server/src/webhooks/post-callback';
import { signCallback } from '../packages/server/src/webhooks/sign';
import { createBenchDatabase, ROOT } from './lib';
import { Targets } from './targets';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Steady rates per engine (events per second); PGlite's one connection saturates near 1,000/s. */
const RATES = {
  pglite: (process.env.BENCH_RATES_PGLITE ?? '250,500,1000').split(',').map(Number),
  postgres: (process.env.BENCH_RATES_POSTGRES ?? '500,1000,2000').split(',').map(Number),
};
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const silent = pino({ level: 'silent' });

interface Sink {
  url: string;
  arrivals(): Promise<{ arrivals: Record<string, number>; duplicates: number }>;
  count(): Promise<number>;
  stop(): void;
}

async function startSink(): Promise<Sink> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/callback-sink.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`sink exited with ${code}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    arrivals: async () => (await (await fetch(`${url}/arrivals`)).json()) as { arrivals: Record<string, number>; duplicates: number },
    count: async () => ((await (await fetch(`${url}/count`)).json()) as { count: number }).count,
    stop: () => void child.kill('SIGTERM'),
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/**
 * Waits until the receiver has seen `total` distinct callbacks since its last reset. The receiver is
 * asked rather than the database, so that polling does not take the database from the worker being
 * measured (on PGlite it has one connection).
 */
async function waitForArrivals(sink: Sink, total: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await sink.count()) < total) {
    if (Date.now() > deadline) throw new Error(`only ${await sink.count()} of ${total} callbacks arrived after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Event creation times in epoch milliseconds with the microseconds kept, by event id. */
async function createdAt(ctx: AppContext): Promise<Map<string, number>> {
  const rows = await sql<{ id: string; ms: string }>`select id, (extract(epoch from created_at) * 1000)::text as ms from events`.execute(ctx.db);
  return new Map(rows.rows.map((r) => [r.id, Number(r.ms)]));
}

/**
 * The baseline: the same signed POSTs to the same receiver from this process, at the same concurrency,
 * with no database at all. The worker's figure divided by this one is what the queue costs.
 */
async function baseline(sink: Sink, concurrency: number): Promise<{ rate: number; cpuMsPerCallback: number }> {
  const guard = createOutboundGuard(['127.0.0.1']);
  const agent = createCallbackAgent(guard, 15_000);
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  let next = 0;
  const started = Date.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < EVENTS) {
        const i = next++;
        const id = `baseline-${i}`;
        const body = callbackBody({ id, type: 'payment.status_changed', createdAt: new Date(), data: { payment_token: id, reference_id: `order-${i}`, status: 'PAID', method: 'CREDITCARD', amount: 100, asset: 'BRL' } });
        const headers = { 'content-type': 'application/json', ...signCallback([secret], id, new Date(), body) };
        await postCallback({ agent, guard, url: `${sink.url}/callbacks`, headers, body, timeoutMs: 15_000 });
      }
    }),
  );
  const rate = EVENTS / ((Date.now() - started) / 1000);
  const cpu = process.cpuUsage(cpuBefore);
  await agent.close();
  await sink.arrivals();
  return { rate, cpuMsPerCallback: (cpu.user + cpu.system) / 1000 / EVENTS };
}

async function runEngine(engine: 'pglite' | 'postgres', sink: Sink) {
  const dataDir = mkdtempSync(join(tmpdir(), 'colibri-bench-callbacks-'));
  const database = engine === 'postgres' && pgUrl ? await createBenchDatabase(pgUrl) : undefined;
  const config = loadConfig({
    ...process.env,
    COLIBRI_DATA_DIR: dataDir,
    DATABASE_URL: database?.url ?? '',
    LOG_LEVEL: 'silent',
    COLIBRI_CALLBACK_ALLOW_HOSTS: '127.0.0.1',
  });
  const handle = await openConfiguredDatabase(config);
  try {
    await migrateToLatest(handle.db);
    const ctx = await buildContext(config, handle, 'adm_bench');
    const merchant = await createMerchant(ctx.db, 'Callback Bench');
    const event = (i: number) => ({
      merchantId: merchant.merchant_id,
      type: 'payment.status_changed' as const,
      resourceType: 'payment' as const,
      resourceId: `bench-${i}`,
      data: { payment_token: `bench-${i}`, reference_id: `order-${i}`, status: 'PAID', method: 'CREDITCARD', amount: 100, asset: 'BRL' },
      notificationUrls: [`${sink.url}/callbacks`],
    });

    // 1. Throughput: a backlog written by the outbox, 1,000 events (each with its delivery) per statement.
    for (let start = 0; start < EVENTS; start += 1_000) {
      await recordEvents(ctx.db, Array.from({ length: Math.min(1_000, EVENTS - start) }, (_, k) => event(start + k)));
    }
    const started = Date.now();
    const cpuBefore = process.cpuUsage();
    let background = startBackground(ctx, silent);
    await waitForArrivals(sink, EVENTS, 600_000);
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMsPerCallback = (cpu.user + cpu.system) / 1000 / EVENTS;
    const backlog = await sink.arrivals();
    const lastArrival = Math.max(...Object.values(backlog.arrivals));
    const throughput = EVENTS / ((lastArrival - started) / 1000);
    await background.stop();

    // 2. Latency at steady rates, with the worker running and woken after each commit as domains do.
    const steady = [];
    let written = EVENTS;
    for (const rate of RATES[engine]) {
      background = startBackground(ctx, silent);
      // Each 10 ms tick commits whatever the rate has made due since the start, so a tick that runs
      // late is caught up by the next instead of lowering the rate.
      const total = rate * SECONDS;
      const t0 = Date.now();
      let sent = 0;
      for (let tick = 1; sent < total; tick += 1) {
        const due = Math.min(total, Math.round((rate * (Date.now() - t0)) / 1000)) - sent;
        if (due > 0) {
          const first = written + sent;
          await ctx.db.transaction().execute((trx) => recordEvents(trx, Array.from({ length: due }, (_, k) => event(first + k))));
          ctx.workerSignal.poke();
          sent += due;
        }
        const next = t0 + tick * 10;
        if (next > Date.now()) await new Promise((r) => setTimeout(r, next - Date.now()));
      }
      const offeredSeconds = (Date.now() - t0) / 1000;
      await waitForArrivals(sink, total, 600_000);
      written += total;
      await background.stop();
      const arrived = await sink.arrivals();
      const created = await createdAt(ctx);
      const latencies = Object.entries(arrived.arrivals)
        .map(([id, at]) => at - (created.get(id) ?? NaN))
        .filter((ms) => Number.isFinite(ms))
        .sort((a, b) => a - b);
      steady.push({
        offeredRate: total / offeredSeconds,
        count: latencies.length,
        p50: percentile(latencies, 50),
        p95: percentile(latencies, 95),
        p99: percentile(latencies, 99),
        max: latencies.at(-1) ?? NaN,
        duplicates: arrived.duplicates,
      });
    }
    return { engine, throughput, cpuMsPerCallback, backlogDuplicates: backlog.duplicates, steady };
  } finally {
    await handle.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const sink = await startSink();
const concurrency = loadConfig({ ...process.env }).callbacks.concurrency;
console.log(`\nbacklog=${EVENTS} events, steady rates for ${SECONDS}s each, concurrency=${concurrency}, node=${process.version}\n`);
console.log('| engine | load | deliveries/s | callbacks | p50 ms | p95 ms | p99 ms | max ms | duplicates |');
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
const cpuNotes: string[] = [];
const targets = new Targets('issue 35: callback deliveries on PostgreSQL');
let postgresThroughput: number | undefined;
try {
  const ceiling = await baseline(sink, concurrency);
  console.log(`| baseline: signed POSTs, no database | ${EVENTS} back to back | ${ceiling.rate.toFixed(0)} | ${EVENTS} | | | | | |`);
  const engines = (process.env.BENCH_ENGINES ?? (pgUrl ? 'pglite,postgres' : 'pglite')).split(',') as ('pglite' | 'postgres')[];
  for (const engine of engines) {
    const r = await runEngine(engine, sink);
    console.log(`| ${r.engine} | backlog of ${EVENTS} | **${r.throughput.toFixed(0)}** (${(r.throughput / ceiling.rate).toFixed(2)} of baseline) | ${EVENTS} | | | | | ${r.backlogDuplicates} |`);
    cpuNotes.push(`${r.engine}: ${r.cpuMsPerCallback.toFixed(3)} ms`);
    if (r.engine === 'postgres') postgresThroughput = r.throughput;
    for (const s of r.steady) {
      console.log(
        `| ${r.engine} | steady ${s.offeredRate.toFixed(0)}/s | ${s.offeredRate.toFixed(0)} | ${s.count} | ${s.p50.toFixed(1)} | **${s.p95.toFixed(1)}** | ${s.p99.toFixed(1)} | ${s.max.toFixed(1)} | ${s.duplicates} |`,
      );
    }
  }
  console.log(`\nCPU of this process per callback while draining the backlog (worker, and PGlite itself): baseline ${ceiling.cpuMsPerCallback.toFixed(3)} ms; ${cpuNotes.join('; ')}`);
  targets.atLeast('deliveries/s draining a backlog, PostgreSQL', postgresThroughput, 3000, '/s');
  targets.print();
} finally {
  sink.stop();
}
