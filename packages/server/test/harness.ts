import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp } from '../src/app';
import { loadConfig, type Config } from '../src/config';
import type { App, AppContext } from '../src/context';
import { openDatabase, type DatabaseHandle, type Engine } from '../src/db/database';
import { migrateToLatest } from '../src/db/migrate';
import { createMerchant, type CreatedMerchant } from '../src/merchants/create-merchant';
import { buildContext } from '../src/runtime';
import { startBackground, type Background } from '../src/background';
import pino from 'pino';
import { adminQuery, testDatabaseUrl } from './postgres-admin';

/** TEST_LOGS=error (or any pino level) shows the service's logs while debugging a test. */
const silentLogger = pino({ level: process.env.TEST_LOGS ?? 'silent' });

/**
 * Test harness. Every database test runs on PGlite (in memory) and, when TEST_DATABASE_URL is set,
 * again on that PostgreSQL. Each test file gets its own fresh database per engine: a new in-memory
 * PGlite, or a new PostgreSQL database created for the file and dropped after it. The service under
 * test listens on an ephemeral port and tests talk to it over real HTTP.
 */
export const ENGINES: readonly Engine[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export interface TestDatabase {
  readonly handle: DatabaseHandle;
  /** For PostgreSQL: the URL of this file's own database (child processes use it). */
  readonly url: string | undefined;
  drop(): Promise<void>;
}

/**
 * What test/global-setup.ts provided, or nothing outside vitest's run (the SDK's `npm run generate`
 * starts a service with this harness from a plain script, where vitest's inject throws).
 */
function provided<K extends 'pgliteTemplate' | 'postgresTemplate'>(key: K): ReturnType<typeof inject<K>> | undefined {
  try {
    return inject(key);
  } catch {
    return undefined;
  }
}

/**
 * A fresh database for one test file, copied from the migrated template of test/global-setup.ts (a run
 * without it, such as a file imported outside vitest's run, migrates an empty one). Migrating it again
 * finds nothing to apply, and would apply a migration the template lacks.
 */
export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  if (engine === 'pglite') {
    const template = provided('pgliteTemplate');
    const handle = await openDatabase({ engine: 'pglite', ...(template ? { loadDataDir: new Blob([readFileSync(template)]) } : {}) });
    await migrateToLatest(handle.db);
    return { handle, url: undefined, drop: () => handle.close() };
  }
  const name = `colibri_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const template = provided('postgresTemplate');
  await adminQuery(`create database ${name}${template ? ` template ${template}` : ''}`);
  const url = testDatabaseUrl(name);
  const handle = await openDatabase({ engine: 'postgres', url, poolSize: 20 });
  await migrateToLatest(handle.db);
  return {
    handle,
    url,
    drop: async () => {
      await handle.close();
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
  /** A raw body sent as is (with the content type given in headers). */
  raw?: string | FormData | URLSearchParams | Uint8Array;
}

export interface TestService {
  readonly engine: Engine;
  readonly baseUrl: string;
  readonly ctx: AppContext;
  readonly app: App;
  readonly database: TestDatabase;
  readonly config: Config;
  readonly background: Background;
  request<T = any>(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse<T>>;
  get<T = any>(path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** A new merchant with a fresh token. */
  merchant(name?: string): Promise<TestMerchant>;
  close(): Promise<void>;
}

export interface TestMerchant extends CreatedMerchant {
  token: string;
}

export interface ServiceOptions {
  env?: Record<string, string>;
  logger?: FastifyBaseLogger;
  /** Extra routes for exercising shared hooks (added before the app starts listening). */
  routes?: (app: App, ctx: AppContext) => void;
}

export async function startTestService(engine: Engine, options: ServiceOptions = {}): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'colibri-test-'));
  const adminToken = `adm_test_${randomBytes(16).toString('hex')}`;
  const config = loadConfig({
    COLIBRI_DATA_DIR: dataDir,
    COLIBRI_ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'silent',
    COLIBRI_SANDBOX_DELAY_MS: '20',
    COLIBRI_CALLBACK_ALLOW_HOSTS: '127.0.0.1,localhost',
    ...options.env,
  });
  const database = await createTestDatabase(engine);
  const ctx = await buildContext(config, database.handle, adminToken);
  const tokens = ctx.tokens;
  const background = startBackground(ctx, options.logger ?? silentLogger, { pollMs: 50, sweepScale: 0.01 });
  const app = await buildApp(ctx, { logger: options.logger ?? (process.env.TEST_LOGS ? silentLogger : false), background });
  options.routes?.(app, ctx);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const baseUrl = `http://127.0.0.1:${address.port}`;

  const request = async <T>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers['x-auth-token'] = opts.token;
    let payload: BodyInit | undefined;
    if (opts.raw !== undefined) payload = opts.raw as BodyInit;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body: payload });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
    return { status: response.status, body: parsed as T, headers: response.headers, text };
  };

  const service: TestService = {
    engine,
    baseUrl,
    ctx,
    app,
    database,
    config,
    request,
    post: (path, body, opts) => request('POST', path, body, opts),
    get: (path, opts) => request('GET', path, undefined, opts),
    merchant: async (name = 'Test Merchant') => {
      const created = await createMerchant(ctx.db, name);
      const token = await tokens.issue({ userId: created.user.id, merchantId: created.merchant_id });
      return { ...created, token };
    },
    background,
    close: async () => {
      await app.close();
      await background.stop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return service;
}

/**
 * Declares a suite once per engine, each with its own service and database for the whole suite.
 * @example
 * describeEachEngine('auth', (service) => {
 *   it('issues a token', async () => { const res = await service().post('/auth', {...}); ... });
 * });
 */
export function describeEachEngine(title: string, body: (service: () => TestService) => void, options: ServiceOptions = {}): void {
  for (const engine of ENGINES) {
    describe(`${title} [${engine}]`, () => {
      let service: TestService | undefined;
      beforeAll(async () => {
        service = await startTestService(engine, options);
      });
      afterAll(async () => {
        await service?.close();
      });
      body(() => {
        if (!service) throw new Error('service not started');
        return service;
      });
    });
  }
}

/** The spec's error timestamp: yyyy-MM-dd'T'HH:mm:ss.SSS+0000. */
export const ERROR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/;
