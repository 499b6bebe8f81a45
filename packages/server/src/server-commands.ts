import { runDoctor } from './connectors/doctor';
import { migrateToLatest } from './db/migrate';
import { serve } from './main';
import { createMerchant } from './merchants/create-merchant';
import { ConfigError, loadConfig } from './config';
import { DataDirLockedError } from './db/data-dir-lock';
import { boundHeapGrowth, DatabaseStartError, openConfiguredDatabase, waitForDatabase } from './runtime';
import { work } from './worker';

/**
 * The actions of the commands that run the service or open its database. src/cli.ts loads this module
 * only when one of them runs, so that the developer's commands (login, listen, trigger, …) and --help
 * start without the service's packages.
 */

/** `colibri serve`. */
export const serveCommand = startup(async () => {
  boundHeapGrowth();
  await serve(loadConfig());
});

/** `colibri worker`. */
export const workerCommand = startup(async () => {
  boundHeapGrowth();
  await work(loadConfig());
});

/** `colibri migrate`. */
export const migrateCommand = startup(async () => {
  const config = loadConfig();
  const handle = await openConfiguredDatabase(config);
  await waitForDatabase(handle, config);
  try {
    const applied = await migrateToLatest(handle.db);
    console.log(applied.length === 0 ? 'database is up to date' : `applied: ${applied.join(', ')}`);
  } finally {
    await handle.close();
  }
});

/** `colibri doctor`. */
export const doctorCommand = startup(async () => {
  const ok = await runDoctor(loadConfig(), (line) => console.log(line));
  if (!ok) process.exitCode = 1;
});

/**
 * A start that fails for a reason the operator must fix (the configuration, the database, a data
 * directory held by another process) prints that reason, one line per problem, and exits instead of
 * printing a stack trace. An invalid configuration exits 78 (sysexits' EX_CONFIG), which tells a
 * supervisor that restarting will not help; the others exit 1.
 */
function startup(action: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await action();
    } catch (error) {
      if (error instanceof ConfigError) {
        process.stderr.write(`colibri: invalid configuration (docs/configuration.md):\n${error.problems.map((p) => `  - ${p}\n`).join('')}`);
        process.exit(78);
      }
      if (error instanceof DataDirLockedError) {
        process.stderr.write(`colibri: ${error.message} Stop it first, or give this process another COLIBRI_DATA_DIR (or a DATABASE_URL).\n`);
        process.exit(1);
      }
      if (!(error instanceof DatabaseStartError)) throw error;
      process.stderr.write(`colibri: ${error.message}\n`);
      process.exit(1);
    }
  };
}

/** `colibri merchant create` without --url: the merchant is written to the database directly. */
export async function createDirectly(name: string): Promise<unknown> {
  const config = loadConfig();
  let handle;
  try {
    handle = await openConfiguredDatabase(config);
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    // A merchant written beside a running service would be lost: create it through the service.
    const token = config.adminToken ? '"$COLIBRI_ADMIN_TOKEN"' : `"$(cat ${config.dataDir}/admin-token)"`;
    process.stderr.write(
      `colibri: ${error.message}\n` +
        `  Create the merchant through the running service instead:\n` +
        `    npx colibri merchant create --name ${JSON.stringify(name)} --url http://${config.host}:${config.port} --admin-token ${token}\n`,
    );
    process.exit(1);
  }
  try {
    await migrateToLatest(handle.db);
    return await createMerchant(handle.db, name);
  } finally {
    await handle.close();
  }
}
