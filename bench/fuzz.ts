/**
 * The long fuzz run (docs/security.md, "Hostile input"): the generator of test/fuzz.test.ts, driven
 * from /openapi.json, against a real `colibri serve` in sandbox mode, for BENCH_FUZZ_INPUTS requests
 * (default 100,000) spread evenly over every operation. It prints the count per status and every
 * breach of the error contract (a 5xx, or an error outside the standard body and the catalogue), and
 * exits 1 when there is one.
 *
 *   npx tsx bench/fuzz.ts                                   # PGlite in a temporary data directory
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/fuzz.ts
 *   BENCH_FUZZ_INPUTS=200000 BENCH_FUZZ_SEED=42 BENCH_FUZZ_CONCURRENCY=8 npx tsx bench/fuzz.ts
 *
 * Requests are generated in rounds of one batch per operation, each round with its own seed
 * (BENCH_FUZZ_SEED + round), so a breach is reproduced by its seed and round; tokens are renewed
 * every round (they live 5 minutes).
 */
import fc from 'fast-check';
import { createBenchDatabase, startColibri } from './lib';
import { operationsOf, requestsFor, seedOverHttp, sendAll, tokenFor, type FuzzRequest, type FuzzResult } from '../packages/server/test/openapi-fuzz';

const INPUTS = Number(process.env.BENCH_FUZZ_INPUTS ?? 100_000);
const SEED = Number(process.env.BENCH_FUZZ_SEED ?? Date.now() % 2 ** 31);
const CONCURRENCY = Number(process.env.BENCH_FUZZ_CONCURRENCY ?? 8);
const PER_OPERATION_PER_ROUND = 40;
const pgUrl = process.env.BENCH_DATABASE_URL;

async function main(): Promise<void> {
  const database = pgUrl ? await createBenchDatabase(pgUrl) : undefined;
  const service = await startColibri(Number(process.env.BENCH_PORT ?? 18_090), {
    ...(database ? { DATABASE_URL: database.url } : {}),
    COLIBRI_SANDBOX_DELAY_MS: '20',
  });
  const started = Date.now();
  try {
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
    const operations = operationsOf(doc);
    const { pool, merchant, faults } = await seedOverHttp(service.url, service.adminToken);
    const result: FuzzResult = { sent: 0, byStatus: {}, byOperation: {}, breaches: [] };
    console.log(`fuzz: ${operations.length} operations, ${INPUTS} inputs, seed ${SEED}, ${database ? 'PostgreSQL' : 'PGlite'}, ${CONCURRENCY} in flight`);
    for (let round = 0; result.sent < INPUTS; round += 1) {
      const tokens = { merchant: await tokenFor(service.url, merchant), faults: await tokenFor(service.url, faults) };
      const batches = operations.map((op, i) =>
        fc.sample(requestsFor(op, pool, { merchant: op.path === '/sandbox/processor/faults' ? tokens.faults : tokens.merchant, admin: service.adminToken }, doc), {
          numRuns: PER_OPERATION_PER_ROUND,
          seed: SEED + round * 1000 + i,
        }),
      );
      const requests: FuzzRequest[] = [];
      for (let k = 0; k < PER_OPERATION_PER_ROUND; k += 1) for (const batch of batches) if (batch[k]) requests.push(batch[k] as FuzzRequest);
      const before = result.breaches.length;
      await sendAll(service.url, requests.slice(0, INPUTS - result.sent), CONCURRENCY, result);
      for (const breach of result.breaches.slice(before)) {
        console.log(`BREACH (seed ${SEED}, round ${round}): ${breach.breach}: ${breach.request.method} ${breach.request.path} ${breach.request.body?.slice(0, 300) ?? ''}\n  → ${breach.answer}`);
      }
      const seconds = (Date.now() - started) / 1000;
      console.log(`  ${result.sent} sent in ${seconds.toFixed(0)} s (${(result.sent / seconds).toFixed(0)}/s), ${result.breaches.length} breaches`);
    }
    const seconds = (Date.now() - started) / 1000;
    console.log(`\nfuzz done: ${result.sent} inputs over ${operations.length} operations in ${seconds.toFixed(0)} s, seed ${SEED}`);
    console.log(`statuses: ${JSON.stringify(Object.fromEntries(Object.entries(result.byStatus).sort()))}`);
    const counts = Object.values(result.byOperation);
    console.log(`per operation: min ${Math.min(...counts)}, max ${Math.max(...counts)}`);
    console.log(`breaches: ${result.breaches.length}`);
    if (result.breaches.length > 0) process.exitCode = 1;
  } finally {
    await service.stop();
    await database?.drop();
  }
}

await main();
