import type { Logger } from 'pino';

/**
 * Graceful shutdown for `colibri serve` and `colibri worker`. On SIGTERM or SIGINT, `drain` runs once:
 * it stops taking new work and waits for the work in flight. The process exits 0 when it finished,
 * and 1 if it did not within `timeoutMs` (work then still held is picked up by other processes once
 * its claims expire) or failed. A second SIGINT (Ctrl-C twice) exits at once.
 * @example onShutdown(logger, 25_000, async () => { await app.close(); await handle.close(); });
 */
export function onShutdown(logger: Logger, timeoutMs: number, drain: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      if (signal === 'SIGINT') {
        logger.warn({ signal }, 'second signal: exiting without waiting');
        process.exit(1);
      }
      return;
    }
    stopping = true;
    const started = Date.now();
    logger.info({ signal, timeout_ms: timeoutMs }, 'shutting down: no new work, finishing work in flight');
    const timer = setTimeout(() => {
      logger.error({ signal, timeout_ms: timeoutMs }, 'shutdown timed out with work in flight; exiting');
      process.exit(1);
    }, timeoutMs);
    drain().then(
      () => {
        clearTimeout(timer);
        logger.info({ signal, duration_ms: Date.now() - started }, 'stopped');
        logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        clearTimeout(timer);
        logger.error({ err: error, signal }, 'shutdown failed');
        logger.flush();
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
