import { parseArgs } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../harness';
import { replayCommand, runSeed, type SeedResult } from './run';
import { startSimService } from './service';

/**
 * `npm run simulate -- --seeds 1000 [--engine pglite|postgres] [--first 1]` runs seeds first … first+N-1;
 * `npm run simulate -- --seed S` replays one seed with its trace (`--verbose` prints every seed's). PostgreSQL needs TEST_DATABASE_URL (a
 * database is created for the run and dropped after it). Exits 1 when any seed fails.
 */
const { values } = parseArgs({
  options: {
    seeds: { type: 'string' },
    seed: { type: 'string' },
    first: { type: 'string', default: '1' },
    engine: { type: 'string', default: 'pglite' },
    steps: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});
const engine = values.engine;
if (engine !== 'pglite' && engine !== 'postgres') throw new Error(`--engine pglite|postgres, not ${engine}`);

/** The run's database: the harness's own (test/harness.ts), migrated from empty outside vitest's run. */
async function open(): Promise<TestDatabase> {
  if (engine === 'postgres' && !process.env.TEST_DATABASE_URL) throw new Error('--engine postgres needs TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)');
  return createTestDatabase(engine as 'pglite' | 'postgres');
}

function report(result: SeedResult, verbose: boolean): void {
  if (result.violations.length === 0) {
    if (verbose) console.log(`seed ${result.seed}: ok (${result.steps} steps, ${result.durationMs} ms)`);
    if (verbose) for (const line of result.trace) console.log(`  ${line}`);
    return;
  }
  console.log(`seed ${result.seed} [${result.engine}]: FAILED after ${result.steps} steps`);
  if (verbose) for (const line of result.trace) console.log(`  ${line}`);
  for (const v of result.violations) console.log(`  ✗ ${v.code}: ${v.message}`);
  console.log(`  replay: ${replayCommand(result.seed, result.engine)}`);
}

const database = await open();
const sim = await startSimService(database.handle, database.url);
const maxSteps = values.steps ? Number(values.steps) : undefined;
let failed = 0;
try {
  if (values.seed !== undefined) {
    const result = await runSeed(sim, Number(values.seed), { maxSteps });
    report(result, true);
    if (result.violations.length > 0) failed++;
  } else {
    const count = Number(values.seeds ?? 100);
    const first = Number(values.first);
    const started = Date.now();
    const byCode = new Map<string, number[]>();
    for (let seed = first; seed < first + count; seed++) {
      const result = await runSeed(sim, seed, { maxSteps });
      if (result.violations.length > 0) {
        failed++;
        for (const code of new Set(result.violations.map((v) => v.code))) byCode.set(code, [...(byCode.get(code) ?? []), seed]);
      }
      report(result, values.verbose);
    }
    console.log(`${count} seeds on ${engine}: ${count - failed} passed, ${failed} failed, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const [code, seeds] of byCode) console.log(`  ${code}: ${seeds.join(', ')}`);
  }
} finally {
  await sim.close();
  await database.drop();
}
process.exit(failed > 0 ? 1 : 0);
