import { join } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PreparingClient } from './prepared-statements';
import type { Database } from './schema';

export type Db = Kysely<Database>;
export type Engine = 'pglite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Db;
  readonly engine: Engine;
  close(): Promise<void>;
}

export type DatabaseTarget =
  | { engine: 'postgres'; url: string; poolSize?: number }
  | { engine: 'pglite'; dataDir?: string; loadDataDir?: Blob | File };

const INT8_OID = 20;

const pools = new WeakMap<Db, pg.Pool>();

/**
 * The connection pool behind a PostgreSQL handle's `db`, for the rare caller that needs a driver
 * connection of its own (the report export streams one statement's rows with socket backpressure).
 * @example const pool = postgresPool(ctx.db); // undefined on PGlite
 */
export function postgresPool(db: Db): pg.Pool | undefined {
  return pools.get(db);
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
    const pool = new pg.Pool({
      Client: PreparingClient,
      connectionString: target.url,
      // A startup parameter: no statement of its own. PGOPTIONS, read by pg only when no options are
      // given, still applies after it (an operator's diagnostics, or another plan cache mode).
      options: [`-c plan_cache_mode=${PLAN_CACHE_MODE}`, process.env.PGOPTIONS].filter(Boolean).join(' '),
      max: target.poolSize ?? 10,
      // While PostgreSQL is down, a request waits at most this long for a connection, then answers 503.
      connectionTimeoutMillis: 5_000,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // An idle pooled connection that the server drops (restart, failover) reports here; the pool replaces
    // it on next use. Without a listener the error would end the process; requests that meet the fault
    // answer 503 and are logged there (http/error-handler.ts).
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    pools.set(db, pool);
    return { db, engine: 'postgres', close: () => db.destroy() };
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
  return { db, engine: 'pglite', close: () => db.destroy() };
}
