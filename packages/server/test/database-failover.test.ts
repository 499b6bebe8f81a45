import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { ConfigError, loadConfig } from '../src/config';
import type { App } from '../src/context';
import { databaseRouting, openDatabase, type DatabaseHandle } from '../src/db/database';
import { isDatabaseUnavailable } from '../src/db/database-errors';
import { createMerchant } from '../src/merchants/create-merchant';
import { buildContext } from '../src/runtime';
import { createTestDatabase, ENGINES, type TestDatabase } from './harness';

/**
 * The pools under a failover's faults, caused for real (docs/scaling.md, "Riding through a failover"):
 * backends terminated while idle, a node that turns read-only under open connections, and a read
 * replica (DATABASE_READ_URL) that is unreachable or whose backends are terminated. The "replica" here
 * is the test database itself under another application_name: what is tested is where reads go and
 * how they fall back, not replication.
 */

/** `application_name` set on a URL, to tell a pool's backends apart in pg_stat_activity. */
function named(url: string, application: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', application);
  return u.toString();
}

/**
 * Terminates the backends of `application` and waits until they have exited, in a child process
 * (psql): the event loop is blocked meanwhile, so the pool has not read the server's goodbye on any of
 * its idle connections when the next statement is sent. The state a pool is in when a failover or a
 * `pg_terminate_backend` meets it idle, made certain.
 */
function terminateNow(database: string, application: string): number {
  const out = execFileSync(
    'psql',
    [
      process.env.TEST_DATABASE_URL ?? '',
      '-Atc',
      `select count(pg_terminate_backend(pid, 5000)) from pg_stat_activity where datname = '${database}' and application_name = '${application}'`,
    ],
    { encoding: 'utf8' },
  );
  return Number(out.trim());
}

async function backends(handle: DatabaseHandle, database: string, application: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = ${database} and application_name = ${application}`.execute(handle.db);
  return rows[0]?.n ?? 0;
}

/** Opens `n` connections of the handle's pool at once and returns them idle to it. */
async function warm(run: () => Promise<unknown>, n: number): Promise<void> {
  await Promise.all(Array.from({ length: n }, run));
}

describe.runIf(ENGINES.includes('postgres'))('connections lost under the pool [postgres]', () => {
  let database: TestDatabase | undefined;
  let url = '';
  let name = '';
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    url = database.url ?? '';
    name = new URL(url).pathname.slice(1);
    await sql`create table failover_probe (id serial primary key, note text not null)`.execute(database.handle.db);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('never lends an idle connection whose backend was terminated: reads run again on a fresh one, and none fails', async () => {
    const handle = await openDatabase({ engine: 'postgres', url: named(url, 'colibri-idle'), poolSize: 4 });
    try {
      await warm(() => sql`select pg_sleep(0.05)`.execute(handle.db), 4);
      expect(terminateNow(name, 'colibri-idle')).toBe(4);
      // Four reads at once, on four connections that are all dead and do not know it yet.
      const reads = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => sql<{ n: number }>`select ${i}::int as n`.execute(handle.db)));
      expect(reads.map((r) => (r.status === 'fulfilled' ? r.value.rows[0]?.n : String(r.reason)))).toEqual([0, 1, 2, 3]);
      const counts = databaseRouting(handle.db);
      expect(counts?.retries.count).toBeGreaterThan(0);
      expect(counts?.primary.counts.discarded).toBeGreaterThanOrEqual(4);
      // A transaction's begin is run again the same way.
      const inTransaction = await handle.db.transaction().execute(async (trx) => {
        await sql`insert into failover_probe (note) values ('after')`.execute(trx);
        return 'committed';
      });
      expect(inTransaction).toBe('committed');
    } finally {
      await handle.close();
    }
  });

  it('never runs again a write that met a dead connection: it fails as unavailable, and the next write succeeds on a fresh connection', async () => {
    const handle = await openDatabase({ engine: 'postgres', url: named(url, 'colibri-write'), poolSize: 2 });
    try {
      await warm(() => sql`select pg_sleep(0.05)`.execute(handle.db), 2);
      expect(terminateNow(name, 'colibri-write')).toBe(2);
      const failed = await sql`insert into failover_probe (note) values ('lost')`.execute(handle.db).then(
        () => undefined,
        (error: unknown) => error,
      );
      // Its fate could be unknown in general: never sent again, answered 503 (http/error-handler.ts).
      expect(isDatabaseUnavailable(failed), String(failed)).toBe(true);
      await sql`insert into failover_probe (note) values ('next')`.execute(handle.db);
      const { rows } = await sql<{ note: string }>`select note from failover_probe where note in ('lost', 'next') order by id`.execute(handle.db);
      expect(rows.map((r) => r.note)).toEqual(['next']);
      expect(databaseRouting(handle.db)?.retries.count).toBe(0);
    } finally {
      await handle.close();
    }
  });

  it('destroys connections that reach a read-only node (25006, a primary turned replica) and writes again on fresh ones', async () => {
    const handle = await openDatabase({ engine: 'postgres', url: named(url, 'colibri-demoted'), poolSize: 2 });
    try {
      // Both connections of the pool are made read-only, as a demoted node's would be.
      await Promise.all([
        handle.db.connection().execute(async (c) => {
          await sql`set default_transaction_read_only = on`.execute(c);
          await sql`select pg_sleep(0.05)`.execute(c);
        }),
        handle.db.connection().execute(async (c) => {
          await sql`set default_transaction_read_only = on`.execute(c);
          await sql`select pg_sleep(0.05)`.execute(c);
        }),
      ]);
      const pids = async () => (await sql<{ pid: number }>`select pid from pg_stat_activity where datname = ${name} and application_name = 'colibri-demoted'`.execute(database?.handle.db ?? handle.db)).rows.map((r) => r.pid).sort();
      const before = await pids();
      expect(before).toHaveLength(2);
      const refused = await sql`insert into failover_probe (note) values ('refused')`.execute(handle.db).then(
        () => undefined,
        (error: unknown) => error as { code?: string },
      );
      expect(refused?.code).toBe('25006');
      expect(isDatabaseUnavailable(refused)).toBe(true);
      // The other read-only connection fails validation too: the write lands on a new connection.
      await sql`insert into failover_probe (note) values ('written')`.execute(handle.db);
      const after = await pids();
      expect(after.filter((pid) => before.includes(pid))).toEqual([]);
      expect(databaseRouting(handle.db)?.primary.counts.discarded).toBeGreaterThanOrEqual(2);
    } finally {
      await handle.close();
    }
  });
});

describe.runIf(ENGINES.includes('postgres'))('reads from a replica (DATABASE_READ_URL) [postgres]', () => {
  let database: TestDatabase | undefined;
  let url = '';
  let name = '';
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    url = database.url ?? '';
    name = new URL(url).pathname.slice(1);
  });
  afterAll(async () => {
    await database?.drop();
  });

  /** One master key for the suite's services, which share the database and its token signing keys. */
  const masterKey = randomBytes(32).toString('base64');

  /** A service over `readUrl` as its replica, driven through Fastify's inject. */
  async function serviceWith(readUrl: string) {
    const dataDir = mkdtempSync(join(tmpdir(), 'colibri-replica-'));
    const adminToken = `adm_test_${randomBytes(16).toString('hex')}`;
    const config = loadConfig({ COLIBRI_DATA_DIR: dataDir, COLIBRI_ADMIN_TOKEN: adminToken, LOG_LEVEL: 'silent', COLIBRI_WORKERS: 'off', COLIBRI_MASTER_KEY: masterKey });
    const handle = await openDatabase({ engine: 'postgres', url: named(url, 'colibri-primary'), readUrl, poolSize: 4, settings: { readMaxLagSeconds: 30 } });
    const ctx = await buildContext(config, handle, adminToken);
    const app: App = await buildApp(ctx, { logger: false });
    await app.ready();
    const merchant = await createMerchant(ctx.db, 'Replica reader');
    const token = await ctx.tokens.issue({ userId: merchant.user.id, merchantId: merchant.merchant_id });
    const metric = async (line: string) => {
      const text = (await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${adminToken}` } })).body;
      const found = text.split('\n').find((l) => l.startsWith(line));
      return found === undefined ? 0 : Number(found.slice(line.length).trim());
    };
    const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'x-auth-token': token } });
    return {
      handle,
      events: () => get('/webhooks/events'),
      /** Exports the merchant's first report (a new merchant has the default ones) as CSV. */
      exportFirst: async () => {
        const reports = (await get('/reports/myreports/report')).json() as { content: { id: number | string }[] };
        const first = reports.content[0];
        if (!first) throw new Error('no report');
        return get(`/reports/myreports/report/${first.id}/export?format=csv`);
      },
      metric,
      close: async () => {
        await app.close();
        await handle.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }

  it('serves the callback event list from the replica pool', async () => {
    const service = await serviceWith(named(url, 'colibri-replica'));
    try {
      expect(service.handle.readDb).not.toBe(service.handle.db);
      const listed = await service.events();
      expect(listed.statusCode, listed.body).toBe(200);
      expect(await service.metric('colibri_db_replica_reads_total{pool="replica"}')).toBeGreaterThan(0);
      expect(await service.metric('colibri_db_replica_fallbacks_total{reason="unavailable"}')).toBe(0);
      expect(await backends(service.handle, name, 'colibri-replica')).toBeGreaterThan(0);
    } finally {
      await service.close();
    }
  });

  it('falls back to the primary when the replica cannot be reached, counted in a metric', async () => {
    // Nothing listens on port 1: every connection to the "replica" is refused.
    const down = new URL(url);
    down.port = '1';
    const service = await serviceWith(down.toString());
    try {
      for (let i = 0; i < 3; i++) {
        const listed = await service.events();
        expect(listed.statusCode, listed.body).toBe(200);
      }
      expect(await service.metric('colibri_db_replica_fallbacks_total{reason="unavailable"}')).toBeGreaterThanOrEqual(3);
      expect(await service.metric('colibri_db_replica_reads_total{pool="primary"}')).toBeGreaterThanOrEqual(3);
      expect(await service.metric('colibri_db_replica_reads_total{pool="replica"}')).toBe(0);
    } finally {
      await service.close();
    }
  });

  it('exports reports from the replica, from the primary when the replica is unreachable, and again after its backends are terminated', async () => {
    const service = await serviceWith(named(url, 'colibri-replica-3'));
    const down = new URL(url);
    down.port = '1';
    const fallback = await serviceWith(down.toString());
    try {
      const exported = await service.exportFirst();
      expect(exported.statusCode, exported.body).toBe(200);
      expect(exported.headers['content-type']).toMatch(/text\/csv/);
      expect(await service.metric('colibri_db_replica_reads_total{pool="replica"}')).toBeGreaterThan(0);
      // Idle replica connections all dead and not knowing it: the export that had not started still runs.
      expect(terminateNow(name, 'colibri-replica-3')).toBeGreaterThan(0);
      const again = await service.exportFirst();
      expect(again.statusCode, again.body).toBe(200);
      expect(again.body).toBe(exported.body);
      const elsewhere = await fallback.exportFirst();
      expect(elsewhere.statusCode, elsewhere.body).toBe(200);
      expect(await fallback.metric('colibri_db_replica_fallbacks_total{reason="unavailable"}')).toBeGreaterThan(0);
    } finally {
      await service.close();
      await fallback.close();
    }
  });

  it('keeps serving reads when the replica\'s backends are terminated, and goes back to the replica', async () => {
    const service = await serviceWith(named(url, 'colibri-replica-2'));
    try {
      await warm(async () => expect((await service.events()).statusCode).toBe(200), 3);
      const servedBefore = await service.metric('colibri_db_replica_reads_total{pool="replica"}');
      expect(terminateNow(name, 'colibri-replica-2')).toBeGreaterThan(0);
      const after = await Promise.all(Array.from({ length: 3 }, () => service.events()));
      expect(after.map((r) => r.statusCode)).toEqual([200, 200, 200]);
      expect(await service.metric('colibri_db_replica_reads_total{pool="replica"}')).toBeGreaterThan(servedBefore);
      expect(await service.metric('colibri_db_connections_discarded_total{pool="replica"}')).toBeGreaterThan(0);
    } finally {
      await service.close();
    }
  });
});

describe('without DATABASE_READ_URL, and on PGlite', () => {
  it('reads everything from the one database', async () => {
    const handle = await openDatabase({ engine: 'pglite' });
    try {
      expect(handle.readDb).toBe(handle.db);
      expect(databaseRouting(handle.db)).toBeUndefined();
    } finally {
      await handle.close();
    }
  });

  it('refuses DATABASE_READ_URL without DATABASE_URL, and reads the connection settings with their defaults', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://replica/colibri' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/colibri', DATABASE_READ_URL: 'mysql://replica' })).toThrow(/DATABASE_READ_URL must be a postgres/);
    const config = loadConfig({ DATABASE_URL: 'postgres://db/colibri', DATABASE_READ_URL: 'postgres://replica/colibri' });
    expect(config.databaseReadUrl).toBe('postgres://replica/colibri');
    expect(config.database).toEqual({ statementTimeoutMs: 0, idleInTransactionTimeoutMs: 60_000, readMaxLagSeconds: 30 });
    expect(loadConfig({}).databaseReadUrl).toBeUndefined();
  });
});
