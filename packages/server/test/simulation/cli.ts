import { parseArgs } from 'node:util';
import { createTestDatabase } from '../harness';
import { replayCommand, runSeed, type SeedResult } from './run';
import { startSimService } from './service';

/**
 * `npm run simulate -- --seeds 1000 [--engine pglite|postgres] [--first 1]` runs seeds first … first+N-1;
 * `npm run simulate -- --seed S` replays one seed with its trace (`--verbose` prints every seed's). PostgreSQL needs TEST_DATABASE_URL (a
 * database is created for the run and dropped after it). Exits 1 when any seed fails, 2 on a wrong
 * option (with the usage, which `--help` prints).
 */
/** How many seeds a run takes, and the first, when not given. */
const DEFAULTS = { seeds: 100, first: 1 };

const USAGE = `npm run simulate -- [--seeds N] [--first F] [--engine pglite|postgres] [--steps S] [--verbose]
npm run simulate -- --seed S [--engine pglite|postgres]

  --seeds N    run seeds F to F+N-1 (${DEFAULTS.seeds})     --first F   the first seed (${DEFAULTS.first})
  --seed S     replay one seed with its trace --engine E  pglite (default) or postgres (TEST_DATABASE_URL)
  --steps S    at most S steps a seed         --verbose   every seed's trace, not only the failed ones'
Exits 1 when any seed fails (docs/simulation.md).`;

/** `--help` prints the usage and exits 0; a wrong option prints what is wrong and the usage to stderr, and exits 2. */
function usage(problem?: string): never {
  if (problem === undefined) {
    console.log(USAGE);
    process.exit(0);
  }
  console.error(`${problem}\n\n${USAGE}`);
  process.exit(2);
}

function parse() {
  try {
    return parseArgs({
      options: {
        seeds: { type: 'string' },
        seed: { type: 'string' },
        first: { type: 'string', default: String(DEFAULTS.first) },
        engine: { type: 'string', default: 'pglite' },
        steps: { type: 'string' },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (error) {
    return usage((error as Error).message);
  }
}

/** A whole number of at least `min` from an option, or the usage and exit 2. */
function count(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) usage(`--${name} takes a whole number of at least ${min}, not ${JSON.stringify(text)}`);
  return n;
}

const values = parse();
if (values.help) usage();
const engine = values.engine === 'pglite' || values.engine === 'postgres' ? values.engine : usage(`--engine takes pglite or postgres, not ${JSON.stringify(values.engine)}`);
if (engine === 'postgres' && !process.env.TEST_DATABASE_URL) usage('--engine postgres needs TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)');
const seedCount = count('seeds', values.seeds, 1) ?? DEFAULTS.seeds;
const first = count('first', values.first, 0) as number;
const replaySeed = count('seed', values.seed, 0);
const maxSteps = count('steps', values.steps, 1);

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

/** The run's database: the harness's own (test/harness.ts), migrated from empty outside vitest's run. */
const database = await createTestDatabase(engine);
const sim = await startSimService(database.handle, database.url);
let failed = 0;
try {
  if (replaySeed !== undefined) {
    const result = await runSeed(sim, replaySeed, { maxSteps });
    report(result, true);
    if (result.violations.length > 0) failed++;
  } else {
    const started = Date.now();
    const byCode = new Map<string, number[]>();
    for (let seed = first; seed < first + seedCount; seed++) {
      const result = await runSeed(sim, seed, { maxSteps });
      if (result.violations.length > 0) {
        failed++;
        for (const code of new Set(result.violations.map((v) => v.code))) byCode.set(code, [...(byCode.get(code) ?? []), seed]);
      }
      report(result, values.verbose);
    }
    console.log(`${seedCount} seeds on ${engine}: ${seedCount - failed} passed, ${failed} failed, in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const [code, seeds] of byCode) console.log(`  ${code}: ${seeds.join(', ')}`);
  }
} finally {
  await sim.close();
  await database.drop();
}
process.exit(failed > 0 ? 1 : 0);
