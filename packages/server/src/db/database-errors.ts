/**
 * Errors that mean "the database cannot be reached right now", as opposed to a statement it refused.
 * A request that meets one answers 503 (DATABASE_UNAVAILABLE) with Retry-After; the pool replaces the
 * lost connection on its next use, so the service recovers by itself once PostgreSQL is back.
 */

/** SQLSTATE classes and codes of lost or refused connections (PostgreSQL's appendix A). */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or in recovery
  '53300', // too_many_connections
  '25006', // read_only_sql_transaction: the node was a primary and is now a replica (a failover)
]);
const UNAVAILABLE_SYSCALL_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** Messages of `pg` and `pg-pool` for a connection that ended or could not be had in time. */
const UNAVAILABLE_MESSAGES = /^(Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Query read timeout)/i;

/**
 * Whether an error means the database is unreachable (the request may be retried), not that it refused
 * the statement.
 * @example if (isDatabaseUnavailable(error)) return reply.code(503)…
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08') || UNAVAILABLE_SYSCALL_CODES.has(code))) return true;
  if (UNAVAILABLE_MESSAGES.test(error.message)) return true;
  // AggregateError (a connect to several addresses, all refused) and errors wrapped with a cause.
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  return error.cause !== undefined && error.cause !== error && isDatabaseUnavailable(error.cause);
}

/**
 * Whether an error means the connection it happened on can never be used again: the server ended it
 * (57P01 admin_shutdown, 57P02, 57P03), the socket broke (08xxx, a syscall error, the driver's own
 * messages), or the node it reaches is no longer a primary (25006: a connection that wrote to the
 * primary before a failover now reaches a replica). The pool discards such a connection
 * (db/resilient-pool.ts) rather than lending it again. Not a refused statement, nor a full server
 * (53300: that concerns new connections).
 * @example if (isConnectionLost(error)) client.release(error); // destroyed, not pooled
 */
export function isConnectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code === '53300') return false;
    if (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08') || UNAVAILABLE_SYSCALL_CODES.has(code)) return true;
  }
  if (UNAVAILABLE_MESSAGES.test(error.message)) return true;
  return error.cause !== undefined && error.cause !== error && isConnectionLost(error.cause);
}

/**
 * One line that says why the database cannot be used, for the start of `serve`, `worker` and `migrate`.
 * @example databaseProblem(error, 'postgres://app@db:5432/colibri') // 'PostgreSQL at db:5432/colibri: database "colibri" does not exist'
 */
export function databaseProblem(error: unknown, url: string | undefined): string {
  let where = 'the database';
  if (url) {
    try {
      const parsed = new URL(url);
      where = `PostgreSQL at ${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname || '/'}`;
    } catch {
      where = 'PostgreSQL (DATABASE_URL is not a valid URL)';
    }
  }
  const errors = error instanceof AggregateError && error.errors.length > 0 ? error.errors : [error];
  const reason = errors
    .map((e) => (e instanceof Error ? e.message || (e as { code?: string }).code || e.name : String(e)))
    .filter((m, i, all) => all.indexOf(m) === i)
    .join('; ');
  return `${where}: ${reason.replace(/\s+/g, ' ').trim()}`;
}
