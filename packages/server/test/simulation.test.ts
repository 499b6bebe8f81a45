import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, ENGINES, type TestDatabase } from './harness';
import { replayCommand, runSeed, type SeedResult } from './simulation/run';
import { startSimService, type SimService } from './simulation/service';

/**
 * The deterministic simulation of card payments' money in flight (docs/simulation.md), in the spirit of
 * TigerBeetle's VOPR and Jepsen's bank test: a bounded number of seeds per engine here,
 * `npm run simulate -- --seeds N` for as many as wanted. SIMULATION_SEEDS sets how many seeds each engine runs.
 */
const SEEDS = Number(process.env.SIMULATION_SEEDS ?? 120);

/**
 * Regression seeds: the seeds that reproduced the four money defects the operation record removed
 * (docs/simulation.md), found by this simulation against the code before it. Each runs here whatever
 * SIMULATION_SEEDS is, and must now hold every invariant.
 * - authorisation-rerun: an authorisation job run again (its worker died after settling it, before
 *   deleting it) while a capture or cancel was in flight settled the authorisation a second time: two
 *   holds, and the capture or void lost (or done at the processor and not shown).
 * - ttl-restarts: the 5-day TTL restarted when an abandoned capture returned the payment to PRE_AUTHORIZED.
 * - keyed-capture-retry-refused: a keyed capture committed by a process that died before keeping its
 *   answer was refused 422 when retried with the same key.
 * - abandoned-after-acting: a worker killed after the processor acted left its job looking never sent;
 *   with status queries unavailable until the deadline, the step was abandoned (ERROR) although the
 *   processor had authorised or captured.
 */
export const REGRESSION_SEEDS: Readonly<Record<number, string>> = {
  ...Object.fromEntries([5, 17, 33, 36, 58, 77, 78, 84, 86, 88, 93, 117].map((seed) => [seed, 'authorisation-rerun'] as const)),
  220: 'ttl-restarts',
  ...Object.fromEntries([35, 39, 85, 111].map((seed) => [seed, 'keyed-capture-retry-refused'] as const)),
  ...Object.fromEntries([59, 79, 100].map((seed) => [seed, 'abandoned-after-acting'] as const)),
};

function failures(results: readonly SeedResult[]): string {
  return results
    .map((r) => [`seed ${r.seed} failed after ${r.steps} steps:`, ...r.violations.map((v) => `  ${v.code}: ${v.message}`), `  replay: ${replayCommand(r.seed, r.engine)}`].join('\n'))
    .join('\n');
}

for (const engine of ENGINES) {
  describe(`payments simulation [${engine}]`, () => {
    let database: TestDatabase | undefined;
    let sim: SimService | undefined;
    beforeAll(async () => {
      database = await createTestDatabase(engine);
      sim = await startSimService(database.handle, database.url);
    });
    afterAll(async () => {
      await sim?.close();
      await database?.drop();
    });
    const service = () => {
      if (!sim) throw new Error('simulation service not started');
      return sim;
    };

    it(`holds every invariant for seeds 1 to ${SEEDS}`, async () => {
      const failed: SeedResult[] = [];
      for (let seed = 1; seed <= SEEDS; seed++) {
        const result = await runSeed(service(), seed);
        if (result.violations.length > 0) failed.push(result);
      }
      expect(failed, failures(failed)).toEqual([]);
    }, 600_000);

    it('holds every invariant for the regression seeds of the defects it found', async () => {
      const failed: SeedResult[] = [];
      for (const seed of Object.keys(REGRESSION_SEEDS).map(Number)) {
        if (seed <= SEEDS) continue; // run by the sweep above
        const result = await runSeed(service(), seed);
        if (result.violations.length > 0) failed.push(result);
      }
      expect(failed, failures(failed)).toEqual([]);
    }, 120_000);
  });
}
