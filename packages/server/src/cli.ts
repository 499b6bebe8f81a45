import { Command } from 'commander';
import { registerDeveloperCommands } from './cli/developer-commands';
import type * as ServerCommands from './server-commands';
import { VERSION } from './version';

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

/** How bin/colibri.js prepares the process before the service's modules load. */
export interface CliOptions {
  /** Runs once, before the first command that runs the service or opens its database loads its modules. */
  beforeServer?: () => Promise<void>;
}

/**
 * The `colibri` command line. The commands that run the service or open its database load their
 * modules (src/server-commands.ts, and the service's packages) when they run; the developer's commands
 * talk to a service over HTTP and start without them.
 */
export function buildCli(options: CliOptions = {}): Command {
  let server: Promise<typeof ServerCommands> | undefined;
  const load = () => (server ??= (async () => {
    await options.beforeServer?.();
    return import('./server-commands');
  })());
  const program = new Command('colibri').description('Colibri payments service').version(VERSION);

  program
    .command('serve')
    .description('run the HTTP service (and its workers) on the configured database')
    .addHelpText('after', `\nExamples:\n  colibri serve\n  DATABASE_URL=postgres://colibri@db:5432/colibri PORT=8080 colibri serve\n${SERVICE_ENVIRONMENT}`)
    .action(async () => (await load()).serveCommand());

  program
    .command('worker')
    .description('run only the background workers (jobs, callbacks, sweeps) on the configured database')
    .addHelpText('after', `\nExamples:\n  DATABASE_URL=postgres://colibri@db:5432/colibri colibri worker\n${SERVICE_ENVIRONMENT}\n  COLIBRI_WORKER_CONCURRENCY, COLIBRI_CALLBACK_CONCURRENCY  jobs and callbacks in flight`)
    .action(async () => (await load()).workerCommand());

  program
    .command('migrate')
    .description('apply pending database migrations and exit')
    .addHelpText('after', `\nExamples:\n  colibri migrate\n  DATABASE_URL=postgres://colibri@db:5432/colibri colibri migrate\n\nEnvironment:\n  DATABASE_URL, COLIBRI_DATA_DIR, COLIBRI_DB_WAIT_MS (how long to wait for the database)`)
    .action(async () => (await load()).migrateCommand());

  program
    .command('doctor')
    .description('check the connector configuration: routes, settings, certificates, endpoints (exit 1 on failure)')
    .addHelpText('after', `\nExamples:\n  colibri doctor\n  COLIBRI_MODE=live COLIBRI_ADYEN_API_KEY=… COLIBRI_ADYEN_MERCHANT_ACCOUNT=ShopBR colibri doctor\n\nEnvironment:\n  COLIBRI_MODE, COLIBRI_MASTER_KEY, and each connector's settings (COLIBRI_ADYEN_*; docs/connectors.md)`)
    .action(async () => (await load()).doctorCommand());

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
      const created = options.url ? await createThroughApi(options.url, options.name, options.adminToken) : await (await load()).createDirectly(options.name);
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
