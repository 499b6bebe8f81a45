import { join } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PreparingClient } from './prepared-statements';
import { ReadRouting, RetryingPool, type ConnectionSource } from './read-routing';
import { ResilientPool } from './resilient-pool';
import type { Database } from './schema';

export type Db = Kysely<Database>;
export type Engine = 'pglite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Db;
  /**
   * For reads that tolerate staleness (docs/scaling.md): the replica of DATABASE_READ_URL, falling back
   * to the primary; without a read URL (and always on PGlite) the very same `db`.
   */
  readonly readDb: Db;
  readonly engine: Engine;
  close(): Promise<void>;
}

/** Connection settings of a PostgreSQL handle (docs/configuration.md, "Database connections"). */
export interface PostgresSettings {
  /** `statement_timeout` of every connection; 0 leaves the server's. */
  readonly statementTimeoutMs?: number;
  /** `idle_in_transaction_session_timeout` of every connection; 0 leaves the server's. */
  readonly idleInTransactionTimeoutMs?: number;
  /** A replica further behind than this serves no reads; 0 never checks. */
  readonly readMaxLagSeconds?: number;
}

export type DatabaseTarget =
  | { engine: 'postgres'; url: string; poolSize?: number; readUrl?: string; settings?: PostgresSettings }
  | { engine: 'pglite'; dataDir?: string; loadDataDir?: Blob | File };

const INT8_OID = 20;

const pools = new WeakMap<Db, ResilientPool>();
const sources = new WeakMap<Db, ConnectionSource>();
/** A PostgreSQL handle's pools and counters. */
export interface DatabaseRouting {
  readonly routing: ReadRouting | undefined;
  readonly primary: ResilientPool;
  readonly replica: ResilientPool | undefined;
  /** Statements run again by `db`'s pool and by `readDb`'s (db/read-routing.ts RetryingPool). */
  readonly retries: { count: number };
  readonly readRetries: { count: number };
}

const readRoutings = new WeakMap<Db, DatabaseRouting>();

/**
 * The connection pool behind a PostgreSQL handle's `db` (the primary), for the rare caller that needs
 * a driver connection of its own (COPY, LISTEN, the shared rate limiter).
 * @example const pool = postgresPool(ctx.db); // undefined on PGlite
 */
export function postgresPool(db: Db): pg.Pool | undefined {
  return pools.get(db);
}

/**
 * Where a PostgreSQL handle's `db` or `readDb` takes its connections, for a caller that needs a driver
 * connection (the report export streams one statement's rows with socket backpressure): for `readDb`,
 * the replica with its fallback to the primary.
 * @example const client = await postgresConnections(ctx.readDb)?.connect();
 */
export function postgresConnections(db: Db): ConnectionSource | undefined {
  return sources.get(db);
}

/** The pools and counters of a PostgreSQL handle, for the metrics (metrics/database-metrics.ts) and tests. */
export function databaseRouting(db: Db): DatabaseRouting | undefined {
  return readRoutings.get(db);
}

/**
 * Runs `work` in one transaction on one connection of a PostgreSQL handle's pool, handing it a `Db`
 * bound to that connection and the driver's client itself, for what only the driver does (COPY FROM
 * STDIN, reconciliation/stage-lines.ts). The transaction commits when `work` resolves and rolls back
 * when it throws. Undefined on PGlite, whose callers use `db.transaction()`.
 * @example await inPostgresTransaction(ctx.db, async (trx, client) => { client.query(copyFrom('copy t from stdin')); … })
 */
export function inPostgresTransaction<T>(db: Db, work: (trx: Db, client: pg.PoolClient) => Promise<T>): Promise<T> | undefined {
  const pool = pools.get(db);
  if (!pool) return undefined;
  return (async () => {
    const client = await pool.connect();
    // Kysely over this one connection: the pool it sees lends it the same client, never releasing it.
    const single = { connect: async () => ({ query: client.query.bind(client), release: () => undefined }), end: async () => undefined };
    const trx = new Kysely<Database>({ dialect: new PostgresDialect({ pool: single as unknown as pg.Pool }) });
    let broken: unknown;
    try {
      await client.query('begin');
      const result = await work(trx, client);
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch((rollback: unknown) => {
        broken = rollback;
      });
      throw error;
    } finally {
      await trx.destroy();
      // A connection whose rollback failed is not given back to be reused.
      client.release(broken instanceof Error ? broken : undefined);
    }
  })();
}

/**
 * Every connection plans a prepared statement once, generically, and keeps that plan. Colibri's
 * statements are few, fixed texts looking rows up by key, most of them shared by the requests of one
 * turn of the event loop as `key = any($1)` (lib/batch.ts); under PostgreSQL's default (`auto`) the
 * planner compares the generic plan, costed for an array of unknown length, with custom plans costed for
 * the batch at hand, finds the custom ones cheaper and so plans the statement again on every run.
 * Measured on transaction details (bench/transaction-details.ts): PostgreSQL's CPU per request was 144 to
 * 219 µs under `auto` and 116 to 132 µs generic, in alternated rounds (backends open before the load); a plan that executes in 0.2 ms no
 * longer costs 0.3 to 0.6 ms to make on every run.
 * Plans follow the data: an ANALYZE (autovacuum's, or db/planner-statistics.ts as tables grow)
 * invalidates them. Queries shaped by a merchant over ranges of their own data (report exports) ask for
 * custom plans again (`set local plan_cache_mode = auto`).
 */
export const PLAN_CACHE_MODE = 'force_generic_plan';

/**
 * Opens Kysely over PostgreSQL (pooled) or PGlite (embedded, one serialised connection). Both engines
 * return `int8` columns as `bigint`, so money in minor units never passes through a JS number.
 * @example
 * const { db, close } = await openDatabase({ engine: 'pglite' }); // in memory
 */
export async function openDatabase(target: DatabaseTarget): Promise<DatabaseHandle> {
  if (target.engine === 'postgres') {
    const settings = target.settings ?? {};
    const primary = openPool(target.url, 'primary', target.poolSize, settings);
    const replica = target.readUrl === undefined ? undefined : openPool(target.readUrl, 'replica', target.poolSize, settings);
    const routing = replica ? new ReadRouting(replica, primary, { maxLagSeconds: settings.readMaxLagSeconds ?? 0 }) : undefined;
    // `db.destroy()` ends the pools, as it did when Kysely held the pool itself; `readDb`'s ends nothing.
    const writes = new RetryingPool(primary, async () => {
      await Promise.all([primary.end(), replica?.end()]);
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: writes as unknown as pg.Pool }) });
    const reads = routing ? new RetryingPool(routing) : undefined;
    const readDb = reads ? new Kysely<Database>({ dialect: new PostgresDialect({ pool: reads as unknown as pg.Pool }) }) : db;
    pools.set(db, primary);
    sources.set(db, primary);
    if (routing) sources.set(readDb, routing);
    const shared: DatabaseRouting = { routing, primary, replica, retries: writes.retried, readRetries: reads?.retried ?? { count: 0 } };
    readRoutings.set(db, shared);
    readRoutings.set(readDb, shared);
    return {
      db,
      readDb,
      engine: 'postgres',
      close: async () => {
        if (readDb !== db) await readDb.destroy();
        await db.destroy();
      },
    };
  }
  // PGlite (its WebAssembly PostgreSQL and the dialect) loads only when it is the engine: imported at
  // start it would add about 40 MB to the resident memory of a service that runs on PostgreSQL.
  const [{ PGlite }, { PreparingPGliteDialect }] = await Promise.all([import('@electric-sql/pglite'), import('./pglite-dialect')]);
  const pglite = await PGlite.create({
    ...(target.dataDir === undefined ? {} : { dataDir: join(target.dataDir, 'pglite') }),
    ...(target.loadDataDir === undefined ? {} : { loadDataDir: target.loadDataDir }),
    parsers: { [INT8_OID]: (value: string) => BigInt(value) },
  });
  await pglite.exec(`set plan_cache_mode = ${PLAN_CACHE_MODE}`);
  const db = new Kysely<Database>({ dialect: new PreparingPGliteDialect(pglite) });
  return { db, readDb: db, engine: 'pglite', close: () => db.destroy() };
}

/**
 * One pool of connections to `url`. `keepAlive` lets the kernel find a peer that vanished without a
 * word (a machine lost, a cable cut) under an idle connection; the timeouts are the server's own bounds
 * (docs/scaling.md, "Riding through a failover").
 */
function openPool(url: string, role: 'primary' | 'replica', poolSize: number | undefined, settings: PostgresSettings): ResilientPool {
  return new ResilientPool({
    role,
    requireWritable: role === 'primary',
    Client: PreparingClient as unknown as new () => pg.ClientBase,
    connectionString: url,
    // Startup parameters: no statement of their own. PGOPTIONS, read by pg only when no options are
    // given, still applies after them (an operator's diagnostics, or another plan cache mode). The
    // timeouts travel in `options` too, which PgBouncer is told to ignore (docs/scaling.md), rather than
    // as parameters of their own, which it would refuse.
    options: [
      `-c plan_cache_mode=${PLAN_CACHE_MODE}`,
      settings.statementTimeoutMs ? `-c statement_timeout=${settings.statementTimeoutMs}` : undefined,
      settings.idleInTransactionTimeoutMs ? `-c idle_in_transaction_session_timeout=${settings.idleInTransactionTimeoutMs}` : undefined,
      process.env.PGOPTIONS,
    ]
      .filter(Boolean)
      .join(' '),
    max: poolSize ?? 10,
    // While PostgreSQL is down, a request waits at most this long for a connection, then answers 503.
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
}
