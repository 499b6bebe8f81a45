import { Command } from 'commander';
import { runDoctor } from './connectors/doctor';
import { registerDeveloperCommands } from './cli/developer-commands';
import { migrateToLatest } from './db/migrate';
import { serve } from './main';
import { createMerchant } from './merchants/create-merchant';
import { ConfigError, loadConfig } from './config';
import { DataDirLockedError } from './db/data-dir-lock';
import { DatabaseStartError, openConfiguredDatabase, VERSION, waitForDatabase } from './runtime';
import { work } from './worker';

/** What the service's commands read: the full list, with defaults, is in docs/configuration.md. */
const SERVICE_ENVIRONMENT = `
Environment (every variable, with its default: docs/configuration.md):
  DATABASE_URL          PostgreSQL; without it, PGlite in COLIBRI_DATA_DIR (default ./data)
  COLIBRI_MODE          sandbox (default) or live
  COLIBRI_MASTER_KEY    card encryption key (or COLIBRI_MASTER_KEY_FILE)
  COLIBRI_ADMIN_TOKEN   admin bearer token (or COLIBRI_ADMIN_TOKEN_FILE)
  HOST, PORT            where serve listens (127.0.0.1:8080)
  PUBLIC_BASE_URL       the address customers reach (checkout_url)
  LOG_LEVEL, LOG_FORMAT`;

/** The `colibri` command line. */
export function buildCli(): Command {
  const program = new Command('colibri').description('Colibri payments service').version(VERSION);

  program
    .command('serve')
    .description('run the HTTP service (and its workers) on the configured database')
    .addHelpText('after', `\nExamples:\n  colibri serve\n  DATABASE_URL=postgres://colibri@db:5432/colibri PORT=8080 colibri serve\n${SERVICE_ENVIRONMENT}`)
    .action(startup(async () => serve(loadConfig())));

  program
    .command('worker')
    .description('run only the background workers (jobs, callbacks, sweeps) on the configured database')
    .addHelpText('after', `\nExamples:\n  DATABASE_URL=postgres://colibri@db:5432/colibri colibri worker\n${SERVICE_ENVIRONMENT}\n  COLIBRI_WORKER_CONCURRENCY, COLIBRI_CALLBACK_CONCURRENCY  jobs and callbacks in flight`)
    .action(startup(async () => work(loadConfig())));

  program
    .command('migrate')
    .description('apply pending database migrations and exit')
    .addHelpText('after', `\nExamples:\n  colibri migrate\n  DATABASE_URL=postgres://colibri@db:5432/colibri colibri migrate\n\nEnvironment:\n  DATABASE_URL, COLIBRI_DATA_DIR, COLIBRI_DB_WAIT_MS (how long to wait for the database)`)
    .action(startup(async () => {
      const config = loadConfig();
      const handle = await openConfiguredDatabase(config);
      await waitForDatabase(handle, config);
      try {
        const applied = await migrateToLatest(handle.db);
        console.log(applied.length === 0 ? 'database is up to date' : `applied: ${applied.join(', ')}`);
      } finally {
        await handle.close();
      }
    }));

  program
    .command('doctor')
    .description('check the connector configuration: routes, settings, certificates, endpoints (exit 1 on failure)')
    .addHelpText('after', `\nExamples:\n  colibri doctor\n  COLIBRI_MODE=live COLIBRI_ADYEN_API_KEY=… COLIBRI_ADYEN_MERCHANT_ACCOUNT=ShopBR colibri doctor\n\nEnvironment:\n  COLIBRI_MODE, COLIBRI_MASTER_KEY, and each connector's settings (COLIBRI_ADYEN_*; docs/connectors.md)`)
    .action(startup(async () => {
      const ok = await runDoctor(loadConfig(), (line) => console.log(line));
      if (!ok) process.exitCode = 1;
    }));

  const merchant = program.command('merchant').description('manage merchants');
  merchant
    .command('create')
    .description('create a merchant and print its credentials (shown only once)')
    .requiredOption('--name <name>', 'merchant name')
    .option('--json', 'print the contract JSON object')
    .option('--url <url>', 'create through a running service at this base URL instead of opening the database')
    .option('--admin-token <token>', 'admin token for --url (default: COLIBRI_ADMIN_TOKEN)')
    .addHelpText(
      'after',
      `\nExamples:\n  colibri merchant create --name "Loja Exemplo"\n  colibri merchant create --name "Loja Exemplo" --json --url http://127.0.0.1:8080 --admin-token adm_…\n\nEnvironment:\n  COLIBRI_ADMIN_TOKEN   with --url\n  DATABASE_URL, COLIBRI_DATA_DIR, COLIBRI_MASTER_KEY   without --url (the database is opened directly)`,
    )
    .action(async (options: { name: string; json?: boolean; url?: string; adminToken?: string }) => {
      const created = options.url ? await createThroughApi(options.url, options.name, options.adminToken) : await createDirectly(options.name);
      if (options.json) {
        console.log(JSON.stringify(created, null, 2));
      } else {
        const m = created as { merchant_id: string; api_key: string; api_secret: string; contract_id: string; payout_contract_id: string; webhook_secret: string };
        console.log(
          [
            `merchant ${m.merchant_id}`,
            `  api key:            ${m.api_key}`,
            `  api secret:         ${m.api_secret}`,
            `  contract id:        ${m.contract_id} (payments, checkouts, subscriptions)`,
            `  payout contract id: ${m.payout_contract_id} (payouts)`,
            `  webhook secret:     ${m.webhook_secret}`,
          ].join('\n'),
        );
      }
    });
  registerDeveloperCommands(program);
  return program;
}

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

async function createDirectly(name: string): Promise<unknown> {
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

async function createThroughApi(baseUrl: string, name: string, adminToken = process.env.COLIBRI_ADMIN_TOKEN): Promise<unknown> {
  if (!adminToken) throw new Error('--admin-token or COLIBRI_ADMIN_TOKEN is required with --url');
  const response = await fetch(new URL('/admin/merchants', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ name }),
  });
  const body: unknown = await response.json();
  if (response.status !== 201) throw new Error(`service answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}
