import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TokenService } from './auth/tokens';
import { ensureDataDir, type Config } from './config';
import type { AppContext } from './context';
import { openDatabase, type DatabaseHandle } from './db/database';
import { migrateToLatest } from './db/migrate';
import { WorkerSignal } from './jobs/worker-signal';
import { SandboxSimulator } from './processor/sandbox-simulator';
import { loadCardCipher } from './vault/card-cipher';

/** The service version, from the server package's manifest. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Opens the configured database: PostgreSQL with DATABASE_URL, else PGlite in the data directory. */
export async function openConfiguredDatabase(config: Config): Promise<DatabaseHandle> {
  if (config.databaseUrl) return openDatabase({ engine: 'postgres', url: config.databaseUrl });
  return openDatabase({ engine: 'pglite', dataDir: ensureDataDir(config) });
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
  await migrateToLatest(handle.db);
  return { ctx: await buildContext(config, handle, adminToken), handle };
}

/** Assembles the context over an open, migrated database (also used by the test harness). */
export async function buildContext(config: Config, handle: DatabaseHandle, adminToken: string): Promise<AppContext> {
  return {
    config,
    db: handle.db,
    engine: handle.engine,
    tokens: await TokenService.load(handle.db),
    adminToken,
    version: VERSION,
    processor: new SandboxSimulator(handle.db, config.sandboxDelayMs),
    cardCipher: loadCardCipher(config),
    workerSignal: new WorkerSignal(),
  };
}
