import { createHmac, timingSafeEqual } from 'node:crypto';
import { ProcessorTimeoutError, ProcessorUnavailableError } from '../../processor/processor';
import type { DlocalPayout } from './dlocal-codes';
import { accessToken, DlocalTokenRefused, type DlocalTokenOptions } from './dlocal-token';

/**
 * What the client needs: dLocal's base URL, the OAuth credentials of Payouts v3 (client id and secret, for the
 * access token) and the secret key (for `Payload-Signature` and notifications).
 */
export interface DlocalApiOptions extends DlocalTokenOptions {
  /** `https://sandbox.dlocal.com` or `https://api.dlocal.com` (or a proxy), without a trailing slash. */
  readonly apiUrl: string;
  readonly secretKey: string;
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
 * dLocal's HMAC signature of a message it sends (its notifications, "Receive notifications"): HMAC-SHA256
 * under the secret key of `X-Login + X-Date + body` (all as sent, no delimiters), in lower-case hex, carried
 * as `Authorization: V2-HMAC-SHA256, Signature: <hex>`.
 * @example dlocalSignature('secret', 'login', '2026-11-28T01:00:00.000Z', '{"a":1}') // '8ddd…'
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
 * Whether a message dLocal sent (a notification) carries this account's signature: its `Authorization` is the
 * HMAC of `X-Login + X-Date + body` under our secret key, compared in constant time. The secret key alone
 * authenticates: Payouts v3 gives Colibri no X-Login of its own to compare the header with, so the one the
 * message carries is taken as it is signed (docs/connectors.md, "dLocal": verified against / assumed).
 */
export function verifyDlocalSignature(secretKey: string, headers: { login?: string | undefined; date?: string | undefined; authorization?: string | undefined }, rawBody: string): boolean {
  if (!secretKey || !headers.login || !headers.date || !headers.authorization) return false;
  const match = AUTHORIZATION.exec(headers.authorization.trim());
  if (!match) return false;
  const expected = Buffer.from(dlocalSignature(secretKey, headers.login, headers.date, rawBody), 'hex');
  const given = Buffer.from(match[1]!, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The headers of one Payouts v3 call ("Security", Payouts v3): `X-Date` (ISO 8601, UTC, milliseconds),
 * `X-Version: 3.0`, `Authorization: Bearer <access token>`, and for a body its `Payload-Signature`.
 */
export function requestHeaders(options: Pick<DlocalApiOptions, 'secretKey'>, token: string, body: string, now: Date = new Date()): Record<string, string> {
  return {
    'X-Date': now.toISOString(),
    'X-Version': '3.0',
    Authorization: `Bearer ${token}`,
    'Content-Type': 'application/json',
    'User-Agent': 'Colibri',
    ...(body === '' ? {} : { 'Payload-Signature': payloadSignature(options.secretKey, body) }),
  };
}

/**
 * A thin client of the Payouts API v3 operations Colibri uses: submit a payout (`POST /payouts/v3`) and read
 * one back by dLocal's id (`GET /payouts/v3/{payout_id}`) or by Colibri's `external_id`
 * (`GET /payouts/v3?external_id=`), each with an OAuth2 access token (dlocal-token.ts); a 401 gets one new
 * token and one more try. Failures are the processor contract's: a connection that never opened is
 * ProcessorUnavailableError (nothing reached dLocal), a deadline or a 5xx ProcessorTimeoutError (it may have
 * acted), a 429 or a token that could not be had unavailable too (dLocal refused to look at it); other 4xx
 * answers, and client credentials dLocal refuses (as a 401), are DlocalRequestRefused.
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

  private async send(method: 'GET' | 'POST', path: string, body: string, operation: string, freshToken: boolean): Promise<Response> {
    let token: string;
    try {
      token = await accessToken(this.options, freshToken);
    } catch (error) {
      if (error instanceof DlocalTokenRefused) throw new DlocalRequestRefused(401, undefined, 'client credentials refused');
      throw error;
    }
    try {
      return await fetch(`${this.options.apiUrl}${path}`, {
        method,
        headers: requestHeaders(this.options, token, body),
        ...(body === '' ? {} : { body }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      // A refused or unresolvable connection never carried the request; anything later may have.
      const code = (error as { cause?: { code?: string } }).cause?.code;
      if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new ProcessorUnavailableError(operation);
      throw new ProcessorTimeoutError(operation);
    }
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
    let response = await this.send(method, path, body, operation, false);
    // A token dLocal no longer takes (expired early, revoked): one new token, one more try. A 401 means dLocal
    // did not act on the request, so sending it again cannot pay twice.
    if (response.status === 401) {
      await response.body?.cancel().catch(() => undefined);
      response = await this.send(method, path, body, operation, true);
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
