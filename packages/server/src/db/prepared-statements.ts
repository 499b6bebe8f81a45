import { createHash } from 'node:crypto';
import pg from 'pg';

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
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // A connection the server ends while it is checked out of the pool (pg_terminate_backend, a restart)
    // emits 'error'; with no listener that would end the process. The query in flight fails by itself,
    // and the pool drops a client that is no longer queryable when it comes back.
    this.on('error', () => undefined);
  }

  // pg's query() is heavily overloaded; this forwards every form and changes only (text, values) calls.
  override query(...args: unknown[]): never {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0) {
      const name = statementName(text);
      if (name) return super.query({ name, text, values }) as never;
    }
    return (super.query as (...forwarded: unknown[]) => never)(...args);
  }
}
