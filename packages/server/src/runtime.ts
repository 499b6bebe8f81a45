import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { AccessList } from './auth/access-list';
import { TokenService } from './auth/tokens';
import { ensureDataDir, type Config } from './config';
import type { AppContext } from './context';
import { lockDataDir } from './db/data-dir-lock';
import { openDatabase, type DatabaseHandle } from './db/database';
import { databaseProblem } from './db/database-errors';
import { migrateToLatest } from './db/migrate';
import { WorkerSignal } from './jobs/worker-signal';
import { instrumentProcessor } from './processor/instrumented-processor';
import { planConnectors } from './connectors/plan';
import { ConnectorRouter } from './connectors/router';
import { loadSecretBox } from './lib/secret-box';
import { VERSION } from './version';

/** The heap may grow to twice what survived its last full collection (V8 allows up to four times). */
export const HEAP_GROWING_PERCENT = 100;

/**
 * Bounds how far V8 lets the heap grow between full collections, for the processes that run for days
 * (`serve`, `worker`). Under load a payment's objects live through its processor call (200 ms in the
 * sandbox), long enough to be promoted to the old generation, about 40 MB a second; with V8's own
 * factor (up to four times the live heap) the resident memory climbed to 350 to 450 MB before each full
 * collection, with a live heap near 90 MB. At twice the live heap it peaks near 240 MB, and the CPU per
 * payment measured the same within the machine's noise (docs/performance.md). The bound follows the
 * live heap, so a larger one (a backlog, a large export) still has room: unlike a heap limit, it
 * never ends the process. `--heap-growing-percent` given to node by the operator is kept.
 * @example boundHeapGrowth(); // at the start of `serve`
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  if (execArgv.some((arg) => arg.startsWith('--heap-growing-percent') || arg.startsWith('--heap_growing_percent'))) return;
  // V8 reads this flag at each full collection, so setting it once the isolate runs takes effect.
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * Opens the configured database: PostgreSQL with DATABASE_URL, else PGlite in the data directory, which
 * is locked first (db/data-dir-lock.ts) and released when the handle is closed. A second process on the
 * same folder gets DataDirLockedError.
 */
export async function openConfiguredDatabase(config: Config): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    return openDatabase({
      engine: 'postgres',
      url: config.databaseUrl,
      ...(config.databaseReadUrl === undefined ? {} : { readUrl: config.databaseReadUrl }),
      settings: config.database,
    });
  }
  const dataDir = ensureDataDir(config);
  const release = lockDataDir(dataDir);
  let handle: DatabaseHandle;
  try {
    handle = await openDatabase({ engine: 'pglite', dataDir });
  } catch (error) {
    release();
    throw error;
  }
  return {
    ...handle,
    close: async () => {
      try {
        await handle.close();
      } finally {
        release();
      }
    },
  };
}

/**
 * The admin token: COLIBRI_ADMIN_TOKEN, or one generated into the data directory on first start.
 * `generated` tells the caller to print it, which happens only that once.
 */
export function resolveAdminToken(config: Config): { token: string; generated: boolean } {
  if (config.adminToken) return { token: config.adminToken, generated: false };
  const file = join(ensureDataDir(config), 'admin-token');
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), generated: false };
  const token = `adm_${randomBytes(32).toString('base64url')}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, generated: true };
}

/**
 * Opens and migrates the database and assembles the application context.
 * @example const { ctx, handle } = await startContext(loadConfig());
 */
export async function startContext(config: Config, adminToken: string): Promise<{ ctx: AppContext; handle: DatabaseHandle }> {
  const handle = await openConfiguredDatabase(config);
  await waitForDatabase(handle, config);
  await migrateToLatest(handle.db);
  return { ctx: await buildContext(config, handle, adminToken), handle };
}

/** Raised when the database cannot be used at start; its message is one line, printed as it is. */
export class DatabaseStartError extends Error {}

/**
 * Waits for the database at start: an unreachable or missing PostgreSQL (a compose file that starts
 * everything at once, a restart under way) is tried again with backoff for `COLIBRI_DB_WAIT_MS`, with
 * one line on stderr per try that says why; then the start fails with one line.
 */
export async function waitForDatabase(handle: DatabaseHandle, config: Config, log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<void> {
  const deadline = Date.now() + config.databaseWaitMs;
  for (let delayMs = 500; ; delayMs = Math.min(delayMs * 2, 5_000)) {
    try {
      await sql`select 1`.execute(handle.db);
      return;
    } catch (error) {
      const problem = databaseProblem(error, config.databaseUrl);
      if (Date.now() + delayMs > deadline) {
        await handle.close().catch(() => undefined);
        throw new DatabaseStartError(`cannot use ${problem}`, { cause: error });
      }
      log(`Colibri is waiting for ${problem} (next try in ${Math.round(delayMs / 100) / 10} s)`);
      await sleep(delayMs);
    }
  }
}

/** Assembles the context over an open, migrated database (also used by the test harness). */
export async function buildContext(config: Config, handle: DatabaseHandle, adminToken: string): Promise<AppContext> {
  // Planned before anything else is built: live mode without its connectors refuses to start here.
  const plan = planConnectors(config);
  const secretBox = loadSecretBox({ masterKey: config.masterKey, dataDir: () => ensureDataDir(config) });
  const connectors = new ConnectorRouter(plan, { db: handle.db, config, cipher: secretBox });
  return {
    config,
    db: handle.db,
    readDb: handle.readDb,
    engine: handle.engine,
    tokens: await TokenService.load(handle.db, secretBox, config.tokenSigningKeys),
    access: new AccessList(handle.db),
    adminToken,
    version: VERSION,
    processor: instrumentProcessor(connectors),
    connectors,
    secretBox,
    workerSignal: new WorkerSignal(),
  };
}
