import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import type { App, AppContext } from '../../src/context';
import type { Db, DatabaseHandle } from '../../src/db/database';
import { openDatabase } from '../../src/db/database';
import { createMerchant } from '../../src/merchants/create-merchant';
import { buildContext } from '../../src/runtime';
import { RecordingProcessor } from './processor-log';

/**
 * The service under simulation: the real app (HTTP routes, job handlers, sandbox processor) over one
 * database, with no background worker and no periodic sweeps. Nothing runs unless the driver runs it,
 * so the seed alone decides the order of everything. Requests go through Fastify's `inject`: the whole
 * HTTP pipeline (hooks, schemas, idempotency) without sockets and their timing.
 */
export interface SimService {
  readonly engine: 'pglite' | 'postgres';
  readonly ctx: AppContext;
  readonly app: App;
  /** The processor as the job handlers and routes see it, recording what it was asked (processor-log.ts). */
  readonly processor: RecordingProcessor;
  /**
   * The database as the simulation's own checks and job driver use it: on PostgreSQL a pool of its own
   * (application_name colibri-sim), so that dropping the service's connections leaves it standing; on
   * PGlite, which has one connection, the service's.
   */
  readonly checkDb: Db;
  request(method: 'GET' | 'POST', path: string, token: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  merchant(name: string): Promise<{ merchantId: string; contractId: string; token: string }>;
  /** PostgreSQL only: terminates every connection of the service's pool (the checks' pool survives). */
  dropServiceConnections(): Promise<number>;
  close(): Promise<void>;
}

export const CHECKER_APPLICATION = 'colibri-sim';

export async function startSimService(handle: DatabaseHandle, url: string | undefined): Promise<SimService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'colibri-sim-'));
  const adminToken = `adm_sim_${randomBytes(16).toString('hex')}`;
  const config = loadConfig({
    COLIBRI_DATA_DIR: dataDir,
    COLIBRI_ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'silent',
    // Processor latency 0: the simulator answers at once, so only the driver's order matters.
    COLIBRI_SANDBOX_DELAY_MS: '0',
    COLIBRI_WORKERS: 'off',
  });
  const built = await buildContext(config, handle, adminToken);
  const processor = new RecordingProcessor(built.processor);
  const ctx: AppContext = { ...built, processor };
  // No background: the sandbox clock's advance does not sweep; the driver runs the TTL sweep itself.
  const app = await buildApp(ctx, { logger: false });
  await app.ready();
  let checker: DatabaseHandle | undefined;
  if (handle.engine === 'postgres') {
    if (!url) throw new Error('a PostgreSQL simulation needs its database URL');
    const checkUrl = new URL(url);
    checkUrl.searchParams.set('application_name', CHECKER_APPLICATION);
    checker = await openDatabase({ engine: 'postgres', url: checkUrl.toString(), poolSize: 2 });
  }
  const checkDb = checker?.db ?? handle.db;

  return {
    engine: handle.engine,
    ctx,
    app,
    processor,
    checkDb,
    async request(method, path, token, body, headers = {}) {
      const response = await app.inject({
        method,
        url: path,
        headers: { 'x-auth-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
      const text = response.body;
      let parsed: unknown = text;
      if ((response.headers['content-type'] ?? '').toString().includes('json') && text !== '') parsed = JSON.parse(text);
      return { status: response.statusCode, body: parsed };
    },
    async merchant(name) {
      const created = await createMerchant(ctx.db, name);
      const token = await ctx.tokens.issue({ userId: created.user.id, merchantId: created.merchant_id });
      return { merchantId: created.merchant_id, contractId: created.contract_id, token };
    },
    async dropServiceConnections() {
      if (handle.engine !== 'postgres') return 0;
      const { rows } = await (await import('kysely')).sql<{ n: number }>`
        select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and application_name <> ${CHECKER_APPLICATION}`.execute(checkDb);
      return rows[0]?.n ?? 0;
    },
    async close() {
      await app.close();
      await checker?.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
