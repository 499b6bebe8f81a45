import type { Config } from './config';
import { startBackground } from './background';
import { onShutdown } from './lifecycle';
import { createLogger } from './logger';
import { startContext } from './runtime';

/**
 * `colibri worker`: the background side alone (jobs, callbacks, periodic sweeps) on the configured
 * database, for deployments that run HTTP with COLIBRI_WORKERS=off and scale workers apart. Several
 * may run against one PostgreSQL; they share the work through `for update skip locked` claims. It
 * stops cleanly on SIGINT or SIGTERM: no new claims, jobs and attempts in flight finished and recorded,
 * claims released, exit 0 (1 past COLIBRI_SHUTDOWN_TIMEOUT_MS; see lifecycle.ts).
 * @example await work(loadConfig()); // runs until a signal
 */
export async function work(config: Config): Promise<void> {
  const logger = createLogger(config);
  // A worker serves no HTTP, so it needs no admin token (and must not generate one).
  const { ctx, handle } = await startContext(config, config.adminToken ?? '');
  const background = startBackground(ctx, logger, { sweepScale: config.sweepScale });
  // Signals are handled before the worker says it is running (see main.ts).
  onShutdown(logger, config.shutdownTimeoutMs, async () => {
    await background.stop();
    await handle.close();
  });
  logger.info({ engine: ctx.engine, worker: background.deliveries.id }, 'worker started');
  process.stderr.write(`Colibri ${ctx.version} worker running (${ctx.engine === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL'})\n`);
}
