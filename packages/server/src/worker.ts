import pino from 'pino';
import type { Config } from './config';
import { startBackground } from './jobs/background';
import { loggerOptions } from './logger';
import { startContext } from './runtime';

/**
 * `colibri worker`: the background side alone (jobs, callbacks, periodic sweeps) on the configured
 * database, for deployments that run HTTP with COLIBRI_WORKERS=off and scale workers apart. Several
 * may run against one PostgreSQL; they share the work through `for update skip locked` claims. It
 * stops cleanly on SIGINT or SIGTERM: no new claims, attempts in flight finished and recorded.
 * @example await work(loadConfig()); // runs until a signal
 */
export async function work(config: Config): Promise<void> {
  const logger = pino(loggerOptions(config.logLevel));
  // A worker serves no HTTP, so it needs no admin token (and must not generate one).
  const { ctx, handle } = await startContext(config, config.adminToken ?? '');
  const background = startBackground(ctx, logger, { sweepScale: config.sweepScale });
  logger.info({ engine: ctx.engine, worker: background.deliveries.id }, 'worker started');
  process.stdout.write(`Colibri ${ctx.version} worker running (${ctx.engine === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL'})\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker shutting down');
    await background.stop();
    await handle.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
