import { createHash } from 'node:crypto';
import pg from 'pg';
import { connectionLostListener, type ConnectionLostListener } from './resilient-pool';

/** Distinct statements prepared at most; beyond it, new statements run unprepared (no growth without bound). */
const MAX_PREPARED = 2_000;
/** A statement is prepared from its second run on, so one-off texts (a batch of odd size) never are. */
const RUNS_BEFORE_PREPARING = 2;

const runs = new Map<string, number>();
const names = new Map<string, string>();

/**
 * The name a statement is prepared under, or undefined to run it unprepared. Names derive from the
 * text, so every connection prepares one text under one name (PostgreSQL's here, PGlite's in
 * pglite-dialect.ts).
 */
export function statementName(text: string): string | undefined {
  const known = names.get(text);
  if (known) return known;
  if (names.size >= MAX_PREPARED) return undefined;
  const count = (runs.get(text) ?? 0) + 1;
  if (count < RUNS_BEFORE_PREPARING) {
    if (runs.size < MAX_PREPARED * 4) runs.set(text, count);
    return undefined;
  }
  runs.delete(text);
  const name = `c_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
  names.set(text, name);
  return name;
}

/**
 * A `pg` client that prepares the statements it runs again and again (Kysely compiles one query shape
 * to one text, with the values as parameters). PostgreSQL then parses and plans each of them once per
 * connection instead of on every call: measured on the card payment path, parsing and planning were
 * about two thirds of the server's time per statement. `pg` prepares a named statement on first use per
 * connection and skips that step afterwards; Kysely offers no option for it, hence this small wrapper.
 * Only parameterised statements are prepared (transaction control and DDL run as before), and
 * cursors and other query objects pass through untouched.
 */
export class PreparingClient extends pg.Client {
  private readonly onLost: ConnectionLostListener | undefined;

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.onLost = connectionLostListener(config);
    // A connection the server ends while it is checked out of the pool (pg_terminate_backend, a restart)
    // emits 'error'; with no listener that would end the process. The query in flight fails by itself;
    // the pool is told, and destroys the connection when it comes back (db/resilient-pool.ts).
    this.on('error', (error) => this.onLost?.(this, error));
  }

  // pg's query() is heavily overloaded; this forwards every form and changes only (text, values) calls.
  override query(...args: unknown[]): never {
    const [text, values] = args;
    let result: unknown;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      const name = statementName(text);
      result = name ? super.query({ name, text, values }) : super.query(text, values);
    } else {
      result = (super.query as (...forwarded: unknown[]) => unknown)(...args);
    }
    // A statement that fails because the connection is lost marks it at once, before the caller can
    // release it to be lent again (the socket may close only a moment later).
    if (this.onLost && result instanceof Promise) result.catch((error: unknown) => this.onLost?.(this, error));
    return result as never;
  }
}
