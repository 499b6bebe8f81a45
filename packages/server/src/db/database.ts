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
  const db = new Kysely<Database>({ dialect: new PreparingPGliteDialect(pglite) });
  return { db, engine: 'pglite', close: () => db.destroy() };
}
