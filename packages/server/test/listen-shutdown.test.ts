import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService } from './harness';
import { spawnColibri, stopChildren, waitForOutput, type Child } from './processes';

/**
 * `colibri listen` is a foreground tool: Ctrl-C or a SIGTERM (a terminal closing, a process manager
 * stopping it) must end it at once, also while the service it follows is down and it waits between
 * reconnections (its backoff grows to several seconds). PGlite only: the database plays no part.
 */
describe('colibri listen stops at once on SIGTERM and SIGINT, even while reconnecting to a stopped service', () => {
  const children: Child[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    await stopChildren(children, 2_000);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`exits within a second of ${signal} during its reconnection backoff`, async () => {
      const service = await startTestService('pglite');
      const merchant = await service.merchant('Listen Shop');
      const configDir = mkdtempSync(join(tmpdir(), 'colibri-listen-'));
      dirs.push(configDir);
      const child = spawnColibri(
        ['listen', '--url', service.baseUrl, '--api-key', merchant.api_key, '--api-secret', merchant.api_secret, '--webhook-secret', merchant.webhook_secret, '--forward-to', 'http://127.0.0.1:9/hooks'],
        { COLIBRI_CONFIG_DIR: configDir },
      );
      children.push(child);
      await waitForOutput(child, 'Ready: forwarding the events of merchant');

      // The service goes away: the stream ends and every reconnection is refused, with backoff between.
      service.app.server.closeAllConnections();
      await service.close();
      // Ten seconds on, each reconnection has failed its token request (three retries, 1.75 s of backoff)
      // four times, and the wait before the next attempt has grown to 2 to 4 s.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      expect(child.process.exitCode, child.output.join('')).toBeNull();

      const sent = Date.now();
      child.process.kill(signal);
      const code = await Promise.race([child.exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 3_000))]);
      const elapsed = Date.now() - sent;
      expect(code, child.output.join('')).toBe(0);
      expect(elapsed).toBeLessThan(1_000);
    }, 60_000);
  }
});
