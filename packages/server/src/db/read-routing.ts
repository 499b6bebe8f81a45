import type pg from 'pg';
import { isConnectionLost } from './database-errors';
import type { ResilientPool } from './resilient-pool';

/** Where connections come from: a pool, or the read routing that picks a replica or the primary. */
export interface ConnectionSource {
  connect(): Promise<pg.PoolClient>;
}

/** What the read routing counted since it opened (metrics/database-metrics.ts). */
export interface ReadCounts {
  /** Connections lent for replica reads, by the pool that served them. */
  readonly served: { replica: number; primary: number };
  /** Replica reads served by the primary, by why: the replica was unreachable, or too far behind. */
  readonly fallbacks: { unavailable: number; lag: number };
}

export interface ReadRoutingOptions {
  /** A replica further behind than this serves no reads until it catches up; 0: never checked. */
  readonly maxLagSeconds: number;
  /** How often the lag is measured, at most (one round trip on a replica connection). */
  readonly lagCheckIntervalMs?: number;
  /** After the replica could not be reached, reads go to the primary this long before it is tried again. */
  readonly retryReplicaAfterMs?: number;
}

/**
 * The lag of a replica in seconds: 0 when it has replayed all it received (an idle primary sends
 * nothing, and the last replay time would then grow without any lag), 0 on a primary.
 */
const LAG_SQL = `select case when not pg_catalog.pg_is_in_recovery() then 0
  when pg_catalog.pg_last_wal_receive_lsn() = pg_catalog.pg_last_wal_replay_lsn() then 0
  else coalesce(extract(epoch from now() - pg_catalog.pg_last_xact_replay_timestamp()), 0) end::float8 as lag`;

/**
 * Reads that tolerate staleness (docs/scaling.md, "Reads from a replica"): a connection to the replica
 * (DATABASE_READ_URL) when it can be had and is recent enough, else one to the primary, counted.
 * An unreachable replica is not tried again for `retryReplicaAfterMs`, so that a replica which drops
 * packets does not make each read wait for its connection timeout.
 */
export class ReadRouting implements ConnectionSource {
  readonly counts: ReadCounts = { served: { replica: 0, primary: 0 }, fallbacks: { unavailable: 0, lag: 0 } };
  private replicaDownUntil = 0;
  private lagging = false;
  private lagCheckedAt = 0;
  private readonly lagCheckIntervalMs: number;
  private readonly retryReplicaAfterMs: number;

  constructor(
    private readonly replica: ResilientPool,
    private readonly primary: ResilientPool,
    private readonly options: ReadRoutingOptions,
  ) {
    this.lagCheckIntervalMs = options.lagCheckIntervalMs ?? 1_000;
    this.retryReplicaAfterMs = options.retryReplicaAfterMs ?? 2_000;
  }

  async connect(): Promise<pg.PoolClient> {
    const now = Date.now();
    if (now < this.replicaDownUntil) return this.fallBack('unavailable');
    if (this.lagging && now - this.lagCheckedAt < this.lagCheckIntervalMs) return this.fallBack('lag');
    let client: pg.PoolClient;
    try {
      client = await this.replica.connect();
    } catch {
      // Refused, timed out, unknown host, or refused at login (a replica set up wrong): the primary
      // serves meanwhile, and the metric tells (metrics/database-metrics.ts).
      this.replicaDownUntil = Date.now() + this.retryReplicaAfterMs;
      return this.fallBack('unavailable');
    }
    if (this.options.maxLagSeconds > 0 && now - this.lagCheckedAt >= this.lagCheckIntervalMs) {
      this.lagCheckedAt = now;
      try {
        const { rows } = await client.query<{ lag: number }>(LAG_SQL);
        this.lagging = (rows[0]?.lag ?? 0) > this.options.maxLagSeconds;
      } catch (error) {
        client.release(error instanceof Error ? error : true);
        this.replicaDownUntil = Date.now() + this.retryReplicaAfterMs;
        return this.fallBack('unavailable');
      }
      if (this.lagging) {
        client.release();
        return this.fallBack('lag');
      }
    }
    this.counts.served.replica++;
    return client;
  }

  /** The replica is tried again at once (a test, or an operator who knows it is back). */
  forget(): void {
    this.replicaDownUntil = 0;
    this.lagCheckedAt = 0;
    this.lagging = false;
  }

  private async fallBack(reason: 'unavailable' | 'lag'): Promise<pg.PoolClient> {
    this.counts.fallbacks[reason]++;
    const client = await this.primary.connect();
    this.counts.served.primary++;
    return client;
  }
}

/** Statements with no effect that may run again on another connection: a transaction's start, a read. */
const RETRY_SAFE = /^\s*(begin|start transaction|select)\b/i;

/**
 * A pool for Kysely over a connection source, which runs again, once, a statement that failed because
 * its connection was lost, when running it again is certainly safe: it was not inside a transaction
 * (the connection was idle, `I`, before it) and has no effect (a `begin`, a `select`). The typical case
 * is an idle connection the server ended that had not yet told the pool: the statement fails at once,
 * and runs again on a fresh connection (db/resilient-pool.ts validates the others). A write whose fate
 * is unknown is never run again: its error goes up and the request answers 503.
 */
export class RetryingPool {
  private readonly leases = new WeakMap<pg.PoolClient, Lease>();
  readonly retried = { count: 0 };

  /** `onEnd`: what Kysely's `destroy()` ends (the pools, for the handle's `db`; nothing for `readDb`). */
  constructor(
    private readonly source: ConnectionSource,
    private readonly onEnd: () => Promise<void> = async () => undefined,
  ) {}

  async connect(): Promise<Lease> {
    const client = await this.source.connect();
    let lease = this.leases.get(client);
    if (!lease) {
      lease = new Lease(this.source, this.retried);
      this.leases.set(client, lease);
    }
    lease.attach(client);
    return lease;
  }

  end(): Promise<void> {
    return this.onEnd();
  }
}

/** One loan of a connection, as Kysely's PostgreSQL driver uses it: `query` and `release`. */
class Lease {
  private client: pg.PoolClient | undefined;

  constructor(
    private readonly source: ConnectionSource,
    private readonly retried: { count: number },
  ) {}

  attach(client: pg.PoolClient): void {
    this.client = client;
  }

  query(...args: unknown[]): unknown {
    const client = this.client;
    if (!client) throw new Error('the connection was released');
    const [text] = args;
    const run = (on: pg.PoolClient) => (on.query as (...forwarded: unknown[]) => unknown).apply(on, args);
    if (typeof text !== 'string' || client.getTransactionStatus() !== 'I' || !RETRY_SAFE.test(text)) return run(client);
    return (run(client) as Promise<unknown>).catch(async (error: unknown) => {
      if (!isConnectionLost(error) || isReadOnly(error)) throw error;
      // This connection is gone: destroyed, and the statement runs once more on another.
      this.client = undefined;
      client.release(error instanceof Error ? error : true);
      const next = await this.source.connect();
      this.client = next;
      this.retried.count++;
      return run(next);
    });
  }

  release(): void {
    const client = this.client;
    this.client = undefined;
    client?.release();
  }
}

/**
 * A connection from `source` with `open` run on it: statements with no effect that start a read (a
 * `begin`, `set local`s, an `explain`, a count). A connection found lost during them is destroyed and
 * `open` runs once more on another, as RetryingPool does for one statement: nothing has been answered
 * yet, so nothing is lost by starting again, and the routing may now pick the primary. On any other
 * failure the connection is destroyed too (it may hold a transaction half open), and the error goes up.
 * Answers the connection, inside what `open` began, and what `open` answered.
 * @example const { client } = await connectAndOpen(source, (c) => c.query('begin isolation level repeatable read read only'));
 */
export async function connectAndOpen<T>(source: ConnectionSource, open: (client: pg.PoolClient) => Promise<T>): Promise<{ client: pg.PoolClient; opened: T }> {
  for (let attempt = 1; ; attempt++) {
    const client = await source.connect();
    try {
      return { client, opened: await open(client) };
    } catch (error) {
      client.release(error instanceof Error ? error : true);
      if (!isConnectionLost(error) || attempt >= 2) throw error;
    }
  }
}

function isReadOnly(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === '25006';
}
