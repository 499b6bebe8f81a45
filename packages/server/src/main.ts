import { buildApp } from './app';
import { startBackground } from './background';
import type { Config } from './config';
import { pixWebhookServerOf } from './checkout/pix-webhook';
import { createMerchant } from './merchants/create-merchant';
import { postgresPool } from './db/database';
import { announceWakeups } from './jobs/wakeups';
import { createLogger } from './logger';
import { onShutdown } from './lifecycle';
import { resolveAdminToken, startContext } from './runtime';
import type { App } from './context';

/**
 * Closes the port and waits for the requests in flight. Fastify answers requests that still arrive on
 * open connections with 503 and `Connection: close`, and closes the connections idle at that moment;
 * a connection whose request was in flight turns idle only once answered, and a keep-alive client would
 * hold it open (Fastify keeps idle connections 72 s). So every answer from now on says
 * `Connection: close`, and connections that turn idle are closed as they do.
 */
async function drainHttp(app: App): Promise<void> {
  app.server.on('request', (_request, response) => {
    if (!response.headersSent) response.setHeader('connection', 'close');
  });
  const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
  }
}

/**
 * `colibri serve`: migrates, creates the demo merchant on an empty database, listens, and stops
 * cleanly on SIGINT or SIGTERM: the port is closed, requests in flight are answered (new ones on open
 * connections get 503 with `Connection: close`), the background finishes its jobs and callbacks in
 * flight and releases its claims, and the process exits 0 (1 past COLIBRI_SHUTDOWN_TIMEOUT_MS).
 */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config);
  const admin = resolveAdminToken(config);
  const { ctx, handle } = await startContext(config, admin.token);
  const background = config.runWorkers ? startBackground(ctx, logger, { sweepScale: config.sweepScale }) : undefined;
  // Without workers of its own, the process tells the workers of other processes of the work it enqueues.
  const pool = postgresPool(ctx.db);
  const stopAnnouncing = !background && pool ? announceWakeups(pool, ctx.workerSignal, { onError: (error) => logger.warn({ err: error }, 'wake-up announcement failed') }) : undefined;
  const app = await buildApp(ctx, { logger, background });
  await app.listen({ host: config.host, port: config.port });
  // The demo merchant is made only once the port is ours, so its one-time secret is never lost to a failed start.
  const firstRun = (await ctx.db.selectFrom('merchants').select('id').limit(1).execute()).length === 0;
  const demo = firstRun ? await createMerchant(ctx.db, 'Demo Merchant') : undefined;
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const listenUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const baseUrl = config.publicBaseUrl ?? listenUrl;

  // Signals are handled before the banner says the service is running: a supervisor (or a test) that stops
  // it as soon as it reads the banner gets a graceful shutdown, not the default end of a process that has
  // no handler yet (seen once in lifecycle.test.ts, which read exit code null).
  onShutdown(logger, config.shutdownTimeoutMs, async () => {
    // HTTP and the background drain together: a request in flight may enqueue work, which other
    // processes (or this one's next start) take up, and a job in flight needs no HTTP.
    await Promise.all([
      drainHttp(app).then(() => logger.info('HTTP drained')),
      background?.stop().then(() => logger.info('background stopped')),
    ]);
    stopAnnouncing?.();
    await handle.close();
  });

  const lines = [
    '',
    `Colibri ${ctx.version} is running at ${listenUrl}${baseUrl === listenUrl ? '' : ` (public address ${baseUrl})`} (${config.mode} mode, ${ctx.engine === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL'})`,
    `  API reference: ${baseUrl}/docs    OpenAPI: ${baseUrl}/openapi.json    health: ${baseUrl}/healthz`,
  ];
  const pixWebhook = pixWebhookServerOf(app);
  if (pixWebhook) lines.push(`  PIX webhook listener (mutual TLS): port ${pixWebhook.port}; register https://<its public address>/<path> at the PSP (it posts to …/pix)`);
  if (admin.generated) lines.push(`  Admin token (shown once, stored in ${config.dataDir}/admin-token): ${admin.token}`);
  if (demo) {
    lines.push(
      '',
      '  Demo merchant created (the secret is shown only now; only its hash is stored):',
      `    api key:            ${demo.api_key}`,
      `    api secret:         ${demo.api_secret}`,
      `    contract id:        ${demo.contract_id} (payments, checkouts, subscriptions)`,
      `    payout contract id: ${demo.payout_contract_id} (payouts)`,
      `    webhook secret:     ${demo.webhook_secret}`,
      '',
      '  Get an access token (it lives 5 minutes):',
      `    curl -s -X POST ${baseUrl}/auth -F apiKey=${demo.api_key} -F apiSecret=${demo.api_secret}`,
    );
  } else {
    // While this process runs, the embedded database is locked to it: credentials are made through it.
    const token = config.adminToken ? '"$COLIBRI_ADMIN_TOKEN"' : `"$(cat ${config.dataDir}/admin-token)"`;
    lines.push('', `  Create API credentials with: npx colibri merchant create --name "My Shop" --url ${listenUrl} --admin-token ${token}`);
  }
  // The banner is for people: stderr, so that stdout carries only JSON log lines.
  process.stderr.write(`${lines.join('\n')}\n\n`);
  logger.info({ url: listenUrl, public_url: baseUrl, mode: config.mode, engine: ctx.engine, version: ctx.version }, 'colibri started');

}
