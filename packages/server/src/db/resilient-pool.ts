import pg from 'pg';
import { isConnectionLost } from './database-errors';

/**
 * A `pg` pool that never lends a connection it has reason to think dead (docs/scaling.md, "Riding
 * through a failover").
 *
 * - A connection on which a statement failed because the connection was lost, or that reached a node
 *   which is no longer a primary (25006), is marked and destroyed when it is released, even when its
 *   socket has not closed yet (PostgreSQL sends its FATAL message a moment before it closes the socket,
 *   and Kysely releases the connection in between).
 * - Each such loss, and each idle connection the server ends, starts a new *failure epoch*. Idle
 *   connections last used before it are validated with one round trip before they are lent again; a
 *   connection that fails validation (or, on a pool that must write, reaches a read-only node) is
 *   destroyed and the next one tried, until a fresh connection is opened. Without a failure nothing is
 *   validated: a healthy pool pays nothing.
 */
export interface ResilientPoolOptions extends pg.PoolConfig {
  /** Which pool this is, for the counters: `primary` or `replica`. */
  readonly role: 'primary' | 'replica';
  /** The pool's connections must accept writes: a connection to a read-only node fails validation. */
  readonly requireWritable: boolean;
}

/** What a pool counted since it opened (metrics/database-metrics.ts reads them at each scrape). */
export interface PoolCounts {
  /** Connections destroyed because they were lost, failed validation or reached a read-only node. */
  discarded: number;
  /** Idle connections validated after a failure. */
  validated: number;
}

/** Per-connection state kept by the pool, out of pg's own fields. */
interface Health {
  /** The failure epoch the connection was last known good in. */
  epoch: number;
  /** A statement on it failed because the connection is lost: never lend it again. */
  lost: boolean;
}

const health = new WeakMap<pg.ClientBase, Health>();

/**
 * Called by the client (db/prepared-statements.ts PreparingClient) when a statement fails or the
 * connection reports an error: marks the connection lost when the error says so, and tells its pool.
 */
export type ConnectionLostListener = (client: pg.ClientBase, error: unknown) => void;

/** A connection that fails validation: destroyed by its release. */
class ValidationFailed extends Error {}

export class ResilientPool extends pg.Pool {
  readonly counts: PoolCounts = { discarded: 0, validated: 0 };
  readonly role: 'primary' | 'replica';
  private readonly requireWritable: boolean;
  private readonly validationTimeoutMs: number;
  private epoch = 0;

  constructor(options: ResilientPoolOptions) {
    const onConnectionLost: ConnectionLostListener = (client, error) => this.noteFailure(client, error);
    // pg-pool hands its options to each client it creates: the client finds its listener there.
    super({ ...options, onConnectionLost } as pg.PoolConfig);
    this.role = options.role;
    this.requireWritable = options.requireWritable;
    this.validationTimeoutMs = options.connectionTimeoutMillis || 5_000;
    // An idle connection the server ended (a restart, a failover, pg_terminate_backend) reports here;
    // pg-pool has already removed it. The others idle beside it are probably gone too: validate them.
    // Without a listener the error would end the process; requests that meet such a fault answer 503
    // and are logged there (http/error-handler.ts).
    this.on('error', () => {
      this.counts.discarded++;
      this.epoch++;
    });
  }

  /** A statement failed on `client` or its connection reported an error. */
  noteFailure(client: pg.ClientBase, error: unknown): void {
    if (!isConnectionLost(error)) return;
    const state = health.get(client);
    if (state && !state.lost) {
      state.lost = true;
      this.epoch++;
    } else if (!state) {
      this.epoch++;
    }
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: Error | boolean) => void) => void): void;
  override connect(callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: Error | boolean) => void) => void): Promise<pg.PoolClient> | void {
    const lent = this.lend();
    if (!callback) return lent;
    lent.then(
      (client) => callback(undefined, client, client.release),
      (error: Error) => callback(error, undefined, () => undefined),
    );
  }

  private async lend(): Promise<pg.PoolClient> {
    // Each round destroys one connection or returns one; every connection of the pool, then a new one.
    const rounds = (this.options.max ?? 10) + 2;
    for (let round = 1; ; round++) {
      const client = await super.connect();
      let state = health.get(client);
      if (!state) {
        state = { epoch: this.epoch, lost: false };
        health.set(client, state);
        this.wrapRelease(client, state);
        return client;
      }
      this.wrapRelease(client, state);
      if (!state.lost && state.epoch === this.epoch) return client;
      const problem = state.lost ? new ValidationFailed('connection lost') : await this.validate(client);
      if (!problem) {
        state.epoch = this.epoch;
        return client;
      }
      if (!state.lost) this.counts.discarded++;
      client.release(problem);
      if (round >= rounds) throw problem;
    }
  }

  /** One round trip on a connection idle since a failure; the error that condemns it, if any. */
  private async validate(client: pg.PoolClient): Promise<Error | undefined> {
    this.counts.validated++;
    try {
      const { rows } = await client.query<{ read_only: string }>({
        text: "select pg_catalog.current_setting('transaction_read_only') as read_only",
        query_timeout: this.validationTimeoutMs,
      } as pg.QueryConfig);
      if (this.requireWritable && rows[0]?.read_only === 'on') {
        return Object.assign(new ValidationFailed('the node is read-only: no longer the primary'), { code: '25006' });
      }
      return undefined;
    } catch (error) {
      return error instanceof Error ? error : new ValidationFailed(String(error));
    }
  }

  /** pg-pool sets `release` on each loan; a lost connection is destroyed, whatever the caller passes. */
  private wrapRelease(client: pg.PoolClient, state: Health): void {
    const release = client.release;
    client.release = (error?: Error | boolean) => {
      if (!state.lost) return release(error);
      this.counts.discarded++;
      return release(error || new ValidationFailed('connection lost'));
    };
  }
}

/** The listener a pooled client was given, if any (db/prepared-statements.ts). */
export function connectionLostListener(config: unknown): ConnectionLostListener | undefined {
  const listener = (config as { onConnectionLost?: unknown } | undefined)?.onConnectionLost;
  return typeof listener === 'function' ? (listener as ConnectionLostListener) : undefined;
}
