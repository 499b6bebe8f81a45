import type { LoggerOptions } from 'pino';

/**
 * Paths never written to logs: credentials, tokens, card data and tax ids, wherever they appear in
 * a logged object. Fastify logs no bodies; these guard the objects code logs on purpose.
 */
const SENSITIVE_KEYS = [
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
  'password',
];

export const REDACTED_PATHS = [
  'req.headers["x-auth-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-auth-token"]',
  'headers.authorization',
  'body',
  // Each sensitive key at the top of a logged object and one or two levels down.
  ...SENSITIVE_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]),
];

/**
 * pino options: JSON lines with the request id on every line of a request (Fastify's child logger
 * adds it) and the redactions above.
 * @example Fastify({ logger: loggerOptions('info') })
 */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'colibri' },
  };
}
