import { createHmac, timingSafeEqual } from 'node:crypto';
import { ProcessorTimeoutError, ProcessorUnavailableError } from '../../processor/processor';
import type { DlocalPayout } from './dlocal-codes';

/** What the client needs: dLocal's base URL and the three API credentials of the Merchant Dashboard. */
export interface DlocalApiOptions {
  /** `https://sandbox.dlocal.com` or `https://api.dlocal.com` (or a proxy), without a trailing slash. */
  readonly apiUrl: string;
  readonly login: string;
  readonly transKey: string;
  readonly secretKey: string;
  readonly timeoutMs: number;
}

/** dLocal refused a request with its error body (`{code, message, param}`) and a 4xx. */
export class DlocalRequestRefused extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: number | undefined,
    readonly detail: string | undefined,
  ) {
    super(`dLocal answered HTTP ${statusCode}${code === undefined ? '' : ` code ${code}`}`);
    this.name = 'DlocalRequestRefused';
  }
}

/**
 * The signature of a request or notification, as dLocal documents it ("Generate a signature"): HMAC-SHA256
 * under the secret key of `X-Login + X-Date + body` (all as sent, no delimiters; an empty body for a GET),
 * in lower-case hex, carried as `Authorization: V2-HMAC-SHA256, Signature: <hex>`.
 * @example dlocalSignature('secret', 'login', '2026-11-28T01:00:00.000Z', '{"a":1}') // 'c1…'
 */
export function dlocalSignature(secretKey: string, login: string, date: string, body: string): string {
  return createHmac('sha256', secretKey).update(`${login}${date}${body}`, 'utf8').digest('hex');
}

/**
 * The Payouts API's payload signature (its "Security" page): HMAC-SHA256 of the request payload alone under
 * the secret key, in lower-case hex, carried as `Payload-Signature`.
 */
export function payloadSignature(secretKey: string, body: string): string {
  return createHmac('sha256', secretKey).update(body, 'utf8').digest('hex');
}

const AUTHORIZATION = /^V2-HMAC-SHA256, Signature: ([0-9a-f]{64})$/;

/**
 * Whether a message dLocal sent (a notification) carries the signature of this account: the login it names
 * is ours, and its `Authorization` is the HMAC of `X-Login + X-Date + body` under our secret key, compared in
 * constant time.
 */
export function verifyDlocalSignature(options: Pick<DlocalApiOptions, 'login' | 'secretKey'>, headers: { login?: string | undefined; date?: string | undefined; authorization?: string | undefined }, rawBody: string): boolean {
  if (headers.login !== options.login || !headers.date || !headers.authorization) return false;
  const match = AUTHORIZATION.exec(headers.authorization.trim());
  if (!match) return false;
  const expected = Buffer.from(dlocalSignature(options.secretKey, options.login, headers.date, rawBody), 'hex');
  const given = Buffer.from(match[1]!, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The signed headers of one call: `X-Date` (ISO 8601, UTC, milliseconds), `X-Login`, `X-Trans-Key`, the
 * `Authorization` signature, and for a body its `Payload-Signature`.
 */
export function signedHeaders(options: DlocalApiOptions, body: string, now: Date = new Date()): Record<string, string> {
  const date = now.toISOString();
  return {
    'X-Date': date,
    'X-Login': options.login,
    'X-Trans-Key': options.transKey,
    'Content-Type': 'application/json',
    'User-Agent': 'Colibri',
    Authorization: `V2-HMAC-SHA256, Signature: ${dlocalSignature(options.secretKey, options.login, date, body)}`,
    ...(body === '' ? {} : { 'Payload-Signature': payloadSignature(options.secretKey, body) }),
  };
}

/**
 * A thin client of the Payouts API v3 operations Colibri uses: submit a payout (`POST /payouts/v3`) and read
 * one back by dLocal's id (`GET /payouts/v3/{payout_id}`) or by Colibri's `external_id`
 * (`GET /payouts/v3?external_id=`). Failures are the processor contract's: a connection that never opened is
 * ProcessorUnavailableError (nothing reached dLocal), a deadline or a 5xx ProcessorTimeoutError (it may have
 * acted), a 429 unavailable too (dLocal refused to look at it); other 4xx answers are DlocalRequestRefused.
 */
export class DlocalApiClient {
  constructor(private readonly options: DlocalApiOptions) {}

  /** `POST /payouts/v3` with the body as built by the connector; the answer is the payout dLocal stored. */
  submitPayout(body: Record<string, unknown>): Promise<DlocalPayout> {
    return this.call('POST', '/payouts/v3', JSON.stringify(body)) as Promise<DlocalPayout>;
  }

  /** The payout by dLocal's id, or null when dLocal has none (404, or its code 5009). */
  readPayout(payoutId: string): Promise<DlocalPayout | null> {
    return this.orNull(this.call('GET', `/payouts/v3/${encodeURIComponent(payoutId)}`, ''));
  }

  /** The payout by Colibri's external_id, or null when dLocal never received it. */
  findPayout(externalId: string): Promise<DlocalPayout | null> {
    return this.orNull(this.call('GET', `/payouts/v3?external_id=${encodeURIComponent(externalId)}`, ''));
  }

  private async orNull(answer: Promise<unknown>): Promise<DlocalPayout | null> {
    try {
      return (await answer) as DlocalPayout;
    } catch (error) {
      if (error instanceof DlocalRequestRefused && (error.statusCode === 404 || error.code === 5009)) return null;
      throw error;
    }
  }

  private async call(method: 'GET' | 'POST', path: string, body: string): Promise<unknown> {
    const operation = method === 'POST' ? 'payout' : 'status';
    let response: Response;
    try {
      response = await fetch(`${this.options.apiUrl}${path}`, {
        method,
        headers: signedHeaders(this.options, body),
        ...(body === '' ? {} : { body }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      // A refused or unresolvable connection never carried the request; anything later may have.
      const code = (error as { cause?: { code?: string } }).cause?.code;
      if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new ProcessorUnavailableError(operation);
      throw new ProcessorTimeoutError(operation);
    }
    const text = await response.text().catch(() => '');
    if (response.status === 429) throw new ProcessorUnavailableError(operation);
    if (response.status >= 500) throw new ProcessorTimeoutError(operation);
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      if (response.ok) throw new ProcessorTimeoutError(operation);
      parsed = {};
    }
    if (!response.ok) {
      const error = parsed as { code?: unknown; message?: unknown };
      throw new DlocalRequestRefused(response.status, typeof error.code === 'number' ? error.code : Number.isInteger(Number(error.code)) ? Number(error.code) : undefined, typeof error.message === 'string' ? error.message : undefined);
    }
    return parsed;
  }
}
