import pino from 'pino';
import { buildApp } from './app';
import { startBackground } from './jobs/background';
import type { Config } from './config';
import { createMerchant } from './merchants/create-merchant';
import { loggerOptions } from './logger';
import { resolveAdminToken, startContext } from './runtime';

/**
 * `colibri serve`: migrates, creates the demo merchant on an empty database, listens, and stops
 * cleanly on SIGINT or SIGTERM.
 */
export async function serve(config: Config): Promise<void> {
  const logger = pino(loggerOptions(config.logLevel));
  const admin = resolveAdminToken(config);
  const { ctx, handle } = await startContext(config, admin.token);
  const background = config.runWorkers ? startBackground(ctx, logger, { sweepScale: config.sweepScale }) : undefined;
  const app = await buildApp(ctx, { logger, background });
  await app.listen({ host: config.host, port: config.port });
  // The demo merchant is made only once the port is ours, so its one-time secret is never lost to a failed start.
  const firstRun = (await ctx.db.selectFrom('merchants').select('id').limit(1).execute()).length === 0;
  const demo = firstRun ? await createMerchant(ctx.db, 'Demo Merchant') : undefined;
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const baseUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

  const lines = [
    '',
    `Colibri ${ctx.version} is running at ${baseUrl} (${config.mode} mode, ${ctx.engine === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL'})`,
    `  API reference: ${baseUrl}/docs    OpenAPI: ${baseUrl}/openapi.json    health: ${baseUrl}/healthz`,
  ];
  if (admin.generated) lines.push(`  Admin token (shown once, stored in ${config.dataDir}/admin-token): ${admin.token}`);
  if (demo) {
    lines.push(
      '',
      '  Demo merchant created (the secret is shown only now; only its hash is stored):',
      `    api key:        ${demo.api_key}`,
      `    api secret:     ${demo.api_secret}`,
      `    contract id:    ${demo.contract_id}`,
      `    webhook secret: ${demo.webhook_secret}`,
      '',
      '  Get an access token (it lives 5 minutes):',
      `    curl -s -X POST ${baseUrl}/auth -F apiKey=${demo.api_key} -F apiSecret=${demo.api_secret}`,
    );
  } else {
    lines.push('', '  Create API credentials with: npx colibri merchant create --name "My Shop" (or POST /admin/merchants)');
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await app.close();
    await background?.stop();
    await handle.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
