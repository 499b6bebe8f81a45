import type { Command} from 'commander';
import { Option } from 'commander';
import { Colibri, ColibriError } from '../../../sdk/src/index';
import { ownEntry } from '../lib/own-entry';
import { listen } from './listen';
import { CONNECTION_ENV_HELP, DEFAULT_URL, profilesPath, resolveConnection, saveProfile, type ConnectionOptions } from './profiles';
import { exportReport } from './report-export';
import { TRIGGERS } from './trigger';

/**
 * The merchant developer's commands: login, listen, trigger, events, clock and reports. They talk to a
 * running service through the SDK (packages/sdk), with the same credentials a merchant's server uses.
 */
export function registerDeveloperCommands(program: Command): void {
  program
    .command('login')
    .description('check a merchant API key and secret against a service and save them as a profile')
    .option('--url <url>', `the service's base URL (default: COLIBRI_URL or ${DEFAULT_URL})`)
    .option('--api-key <key>', 'API key (default: COLIBRI_API_KEY)')
    .option('--api-secret <secret>', 'API secret (default: COLIBRI_API_SECRET)')
    .option('--webhook-secret <secret>', 'webhook secret (whsec_…) with which colibri listen signs (default: COLIBRI_WEBHOOK_SECRET)')
    .option('--profile <name>', 'profile name (default: COLIBRI_PROFILE or "default")')
    .addHelpText(
      'after',
      `
Examples:
  colibri login --url http://127.0.0.1:8080 --api-key ck_… --api-secret cs_… --webhook-secret whsec_…
  COLIBRI_API_KEY=ck_… COLIBRI_API_SECRET=cs_… colibri login --profile staging --url https://pay.example.com

The profile is saved in ${profilesPath()} (readable by you only).

Environment:
  COLIBRI_URL, COLIBRI_API_KEY, COLIBRI_API_SECRET, COLIBRI_WEBHOOK_SECRET, COLIBRI_PROFILE, COLIBRI_CONFIG_DIR`,
    )
    .action(guard(async (options: ConnectionOptions & { webhookSecret?: string }) => {
      const url = options.url ?? process.env.COLIBRI_URL ?? DEFAULT_URL;
      const apiKey = options.apiKey ?? process.env.COLIBRI_API_KEY;
      const apiSecret = options.apiSecret ?? process.env.COLIBRI_API_SECRET;
      if (!apiKey || !apiSecret) throw new Error('login needs --api-key and --api-secret (or COLIBRI_API_KEY and COLIBRI_API_SECRET)');
      const merchant = await new Colibri({ baseUrl: url, apiKey, apiSecret }).merchant();
      const webhookSecret = options.webhookSecret ?? process.env.COLIBRI_WEBHOOK_SECRET;
      const name = options.profile ?? process.env.COLIBRI_PROFILE ?? 'default';
      const path = saveProfile(name, { url, api_key: apiKey, api_secret: apiSecret, ...(webhookSecret ? { webhook_secret: webhookSecret } : {}) });
      console.log(`Logged in to ${url} as merchant ${merchant.merchant_id} (${merchant.name}, ${merchant.mode}); profile "${name}" saved in ${path}`);
      if (!webhookSecret) console.log('No webhook secret saved: colibri listen will need --webhook-secret or COLIBRI_WEBHOOK_SECRET.');
    }));

  withConnection(
    program
      .command('listen')
      .description("forward the merchant's events, signed as callbacks, to a local URL")
      .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:4242/webhooks')
      .option('--events <types>', 'comma-separated event types to forward (default: all)')
      .option('--since <time>', 'also forward the events created since this ISO 8601 time')
      .option('--webhook-secret <secret>', 'signing secret (default: COLIBRI_WEBHOOK_SECRET or the profile)'),
    `
Each event is posted as Colibri posts a callback: the JSON body {id, type, created_at, data} with the
webhook-id, webhook-timestamp and webhook-signature headers of Standard Webhooks, signed with the
merchant's webhook secret, so your endpoint verifies it as it would verify a real callback. Events come
from GET /webhooks/events/stream: every event of the merchant is forwarded, with or without a
notification URL. Runs until Ctrl-C.

Examples:
  colibri listen --forward-to http://localhost:4242/webhooks
  colibri listen --forward-to http://localhost:4242/webhooks --events payment.status_changed,refund.status_changed
  COLIBRI_WEBHOOK_SECRET=whsec_… colibri listen --url http://127.0.0.1:8080 --api-key ck_… --api-secret cs_… --forward-to http://localhost:4242/webhooks

Environment:
  COLIBRI_WEBHOOK_SECRET  the merchant's webhook secret (whsec_…)`,
  ).action(guard(async (options: ConnectionOptions & { forwardTo: string; events?: string; since?: string; webhookSecret?: string }) => {
    const { colibri, profile } = connect(options);
    const webhookSecret = options.webhookSecret ?? profile.webhook_secret;
    if (!webhookSecret) throw new Error('listen needs the webhook secret: --webhook-secret, COLIBRI_WEBHOOK_SECRET, or colibri login --webhook-secret');
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    process.once('SIGTERM', () => stop.abort());
    await listen(colibri, {
      forwardTo: options.forwardTo,
      webhookSecret,
      types: options.events ? options.events.split(',').map((t) => t.trim()).filter(Boolean) : [],
      since: options.since ? new Date(options.since) : undefined,
      signal: stop.signal,
      out: (line) => console.log(line),
      err: (line) => console.error(line),
    });
    // Stopped by a signal, listen returns at once, even between reconnections; a token request it no
    // longer waits for may still be retrying against a stopped service, so the process exits now.
    if (stop.signal.aborted) process.exit(0);
  }));

  const triggerNames = Object.keys(TRIGGERS);
  withConnection(
    program
      .command('trigger')
      .description('create in sandbox what produces an event')
      .argument('<event>', `one of: ${triggerNames.join(', ')}`),
    `
Events:
${Object.entries(TRIGGERS)
  .map(([name, t]) => `  ${name.padEnd(26)} ${t.description}\n  ${''.padEnd(26)} produces ${t.events.join(', ')}`)
  .join('\n')}

Sandbox mode only. Each trigger waits for the outcome and prints the resources it made.

Examples:
  colibri trigger payment.paid
  colibri trigger refund.completed --url http://127.0.0.1:8080 --api-key ck_… --api-secret cs_…`,
  ).action(guard(async (event: string, options: ConnectionOptions) => {
    // Only the table's own events: `constructor` or `toString` is an unknown event like any other.
    const trigger = ownEntry(TRIGGERS, event);
    if (!trigger) throw new Error(`unknown event ${event}: one of ${triggerNames.join(', ')}`);
    const { colibri } = connect(options);
    const merchant = await colibri.merchant();
    if (merchant.mode !== 'sandbox') throw new Error(`colibri trigger works in sandbox mode only; ${colibri.baseUrl} runs in ${merchant.mode} mode`);
    await trigger.run(colibri, merchant, (line) => console.log(line));
    console.log(`Triggered ${event}: ${trigger.events.join(', ')}`);
  }));

  const events = program.command('events').description("the merchant's events and their callbacks");
  withConnection(
    events
      .command('list')
      .description('list recent events, newest first')
      .addOption(new Option('--type <type>', 'only this event type'))
      .addOption(new Option('--status <status>', 'only events whose callbacks are').choices(['pending', 'delivered', 'failed', 'skipped']))
      .option('--limit <n>', 'how many (at most 100)', '20')
      .option('--json', 'print the API answer as JSON'),
    `
Examples:
  colibri events list
  colibri events list --type payment.status_changed --status failed --limit 50
  colibri events list --json`,
  ).action(guard(async (options: ConnectionOptions & { type?: string; status?: string; limit: string; json?: boolean }) => {
    const { colibri } = connect(options);
    const page = await colibri.events.list({
      limit: Number(options.limit),
      ...(options.type ? { type: options.type as never } : {}),
      ...(options.status ? { status: options.status as never } : {}),
    });
    if (options.json) return console.log(JSON.stringify(page, null, 2));
    for (const e of page.events) {
      const data = e.data as { status?: string; refund_status?: string };
      console.log(`${e.id}  ${e.created_at}  ${e.type.padEnd(36)} ${String(data.status ?? data.refund_status ?? '').padEnd(18)} ${e.resource_id}  callbacks: ${e.status}`);
    }
    if (page.events.length === 0) console.log('no events');
  }));
  withConnection(
    events.command('resend').description('deliver an event again to its notification URLs').argument('<id>', 'the event id'),
    `
Examples:
  colibri events resend 4f0c2a5e-8a53-4a5e-9d43-6a7f3f1f2b11`,
  ).action(guard(async (id: string, options: ConnectionOptions) => {
    const { colibri } = connect(options);
    const event = await colibri.events.retry(id);
    console.log(`${event.id} ${event.type}: callbacks ${event.status}`);
    for (const d of event.deliveries) console.log(`  ${d.url}: ${d.status}, ${d.attempt_count} attempts`);
  }));

  const clock = program.command('clock').description("the merchant's sandbox clock");
  withConnection(
    clock
      .command('advance')
      .description("move the merchant's sandbox clock forward")
      .argument('<duration>', 'e.g. 90s, 30m, 2h, 5d, 1d12h, or a number of seconds'),
    `
Every time rule of the merchant (refund windows, pre-authorisation expiry, due dates, subscription
charges) follows this clock. Sandbox mode only.

Examples:
  colibri clock advance 5d
  colibri clock advance 1d12h
  colibri clock advance 3600`,
  ).action(guard(async (duration: string, options: ConnectionOptions) => {
    const seconds = parseDuration(duration);
    const { colibri } = connect(options);
    const answer = await colibri.sandbox.advanceClock(seconds);
    console.log(`clock advanced ${seconds} s; merchant time is now ${String((answer as { now: string }).now)}`);
  }));

  const reports = program.command('reports').description('saved reports');
  withConnection(
    reports
      .command('export')
      .description("export a saved report's rows")
      .argument('<id>', 'the report id (colibri reports list shows them)')
      .addOption(new Option('--format <format>', 'csv or json').choices(['csv', 'json']).default('csv'))
      .option('--output <file>', 'write to this file instead of stdout'),
    `
The rows go to stdout (or --output). The export counts its rows first, so a progress bar on stderr
shows the percentage and the rows received of the total; a summary line ends it.

Examples:
  colibri reports export 12 --format csv > payments.csv
  colibri reports export 12 --format json --output payments.json`,
  ).action(guard(async (id: string, options: ConnectionOptions & { format: 'csv' | 'json'; output?: string }) => {
    const { colibri } = connect(options);
    await exportReport(colibri, id, options.format, options.output);
  }));
  withConnection(reports.command('list').description('list saved reports'), `\nExamples:\n  colibri reports list`).action(guard(async (options: ConnectionOptions) => {
    const { colibri } = connect(options);
    for await (const report of colibri.reports.all({ size: 100 })) console.log(`${String(report.id).padStart(6)}  ${report.name}`);
  }));
}

/** Adds the connection flags and the environment help to a merchant command. */
function withConnection(command: Command, help: string): Command {
  return command
    .option('--url <url>', `the service's base URL (default: COLIBRI_URL, the profile, or ${DEFAULT_URL})`)
    .option('--api-key <key>', 'API key (default: COLIBRI_API_KEY or the profile)')
    .option('--api-secret <secret>', 'API secret (default: COLIBRI_API_SECRET or the profile)')
    .option('--profile <name>', 'saved profile (default: COLIBRI_PROFILE or "default")')
    .addHelpText('after', `${help}\n${CONNECTION_ENV_HELP}`);
}

function connect(options: ConnectionOptions) {
  const profile = resolveConnection(options);
  return { profile, colibri: new Colibri({ baseUrl: profile.url, apiKey: profile.api_key, apiSecret: profile.api_secret }) };
}

const UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** `90s`, `30m`, `2h`, `5d`, `1w`, `1d12h` or plain seconds → seconds. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  if (!/^(\d+[smhdw])+$/.test(trimmed)) throw new Error(`duration ${text}: write it as 90s, 30m, 2h, 5d, 1w, 1d12h or a number of seconds`);
  let seconds = 0;
  for (const [, n, unit] of trimmed.matchAll(/(\d+)([smhdw])/g)) seconds += Number(n) * UNITS[unit!]!;
  return seconds;
}

/** Runs an action; an error is printed as one line on stderr and the exit code is 1, with no stack trace. */
function guard<A extends unknown[]>(action: (...args: A) => Promise<unknown>): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await action(...args);
    } catch (error) {
      console.error(`colibri: ${describeCliError(error)}`);
      process.exitCode = 1;
    }
  };
}

/** How an error from a developer command is shown: the service's codes, or the message. */
export function describeCliError(error: unknown): string {
  if (error instanceof ColibriError) return `${error.message}${error.requestId ? ` (request ${error.requestId})` : ''}`;
  return error instanceof Error ? error.message : String(error);
}
