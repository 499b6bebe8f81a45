import pino, { type Logger, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';

/**
 * Keys never written to logs, at any depth of a logged object: credentials, tokens, card data, tax ids
 * and the credential headers. Fastify logs no bodies; this guards the objects code logs on purpose.
 */
const SENSITIVE_KEYS = new Set([
  'apiSecret',
  'api_secret',
  'token',
  'refresh_token',
  'webhook_secret',
  'number',
  'card_number',
  'cardNumber',
  'cvv',
  'tax_id',
  'payer_tax_id',
  'password',
  'x-auth-token',
  'authorization',
  'cookie',
]);
/** Logged at the top of an object, a `body` is dropped whole: request bodies carry card data. */
const SENSITIVE_TOP_KEYS = new Set(['body']);
const CENSOR = '[redacted]';
/** Deeper than this, a logged object is cut off rather than walked. */
const MAX_DEPTH = 8;

/**
 * A copy of a logged object with every sensitive key censored, however deep. Only plain objects and
 * arrays are walked and copied (the caller's object is never changed); errors, dates and buffers go to
 * pino's serializers as they are.
 * @example redactSensitive({ card: { number: '4111…' } }) // { card: { number: '[redacted]' } }
 */
export function redactSensitive(value: Record<string, unknown>): Record<string, unknown> {
  return walk(value, 0, new WeakSet(), true) as Record<string, unknown>;
}

function walk(value: unknown, depth: number, seen: WeakSet<object>, top: boolean): unknown {
  if (value === null || typeof value !== 'object') return value;
  const plain = Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null;
  if (!plain) return value;
  if (seen.has(value) || depth >= MAX_DEPTH) return '[cut]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1, seen, false));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = SENSITIVE_KEYS.has(key) || (top && SENSITIVE_TOP_KEYS.has(key)) ? CENSOR : walk(item, depth + 1, seen, false);
  }
  return copy;
}

/**
 * pino options: JSON lines with the request id on every line of a request (Fastify's child logger
 * adds it) and the redaction above. The redaction runs as a log formatter, so it costs only when a
 * line is written: pino's own `redact` with wildcard paths also redacts the bindings of every child
 * logger, which Fastify creates once per request (measured at about 4 % of a simple request).
 * @example Fastify({ logger: loggerOptions('info') })
 */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    formatters: { log: redactSensitive },
    base: { service: 'colibri' },
  };
}

/**
 * The process's logger. `json` (the default) writes one JSON object per line to stdout, for log
 * collectors; `pretty` (LOG_FORMAT=pretty) writes coloured, readable lines for a person at a terminal,
 * through pino-pretty in this thread (no worker thread, so nothing is lost when the process exits).
 * Human messages that are not log lines (the start banner) go to stderr, so stdout stays parseable.
 * @example const logger = createLogger({ logLevel: 'info', logFormat: 'json' });
 */
export function createLogger(config: { readonly logLevel: string; readonly logFormat: 'json' | 'pretty' }): Logger {
  if (config.logFormat === 'pretty') {
    return pino(loggerOptions(config.logLevel), pretty({ colorize: process.stdout.isTTY, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service', sync: true }));
  }
  return pino(loggerOptions(config.logLevel));
}
