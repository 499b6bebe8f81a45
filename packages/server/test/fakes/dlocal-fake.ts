import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dlocalSignature, payloadSignature } from '../../src/connectors/dlocal/dlocal-api';
import { payoutRequestProblems } from './dlocal-schema';

/** A payout as the fake keeps it, with every status it went through (its notifications replay them). */
export interface FakePayout {
  readonly id: string;
  readonly externalId: string;
  readonly body: Record<string, unknown>;
  status: string;
  statusCode: string;
  statusDetail: string;
  readonly history: { status: string; statusCode: string }[];
}

type Fault = 'HTTP_500' | 'DROP_AFTER_ACTING' | 'REFUSE_CONNECTION';

const STATUS_CODES: Readonly<Record<string, string>> = { PENDING: '100', PAID: '200', REJECTED: '300', CANCELLED: '400', DELIVERED: '500', ON_HOLD: '600', ON_HOLD_BY_COMPLIANCE: '700' };

/**
 * A loopback dLocal Payouts API v3, from dLocal's published reference ("Security", Payouts v3):
 * - `POST /oauth/token` issues access tokens for the account's client credentials (client-credentials grant,
 *   JSON body), each living `tokenLifetimeSeconds` (dLocal: 180);
 * - every other request must carry `X-Date`, `X-Version: 3.0` and `Authorization: Bearer <token>` with a
 *   token it issued that has not expired (else 401), and for a body its `Payload-Signature`
 *   (hex HMAC-SHA256 of the body under the secret key; else 403 4001);
 * - every payout must match the schema of dlocal-schema.ts, or the fake answers dLocal's error body
 *   (`{code, message, param}`: 3000, 5011, …).
 * Payouts start PENDING; the test moves them (`settle`, `returnPayout`) and makes the fake notify Colibri,
 * signed with the secret key over `X-Login + X-Date + body`, as often and in whatever order it wants
 * (`notify`). An account number ending in `3000` is rejected at once, as a closed account (status code 801).
 */
export class DlocalFake {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly secretKey: string;
  /** The X-Login this account's notifications carry (dLocal's side; Colibri has no setting for it). */
  readonly login: string;
  /** The life of the tokens it issues, in seconds. */
  tokenLifetimeSeconds = 180;
  /** Issued tokens and when each expires (ms since the epoch). */
  readonly tokens = new Map<string, number>();
  /** How many tokens were asked for, granted or not. */
  tokenRequests = 0;
  /** While set, every bearer token is refused with 401, fresh or not. */
  refuseBearer = false;
  readonly payouts = new Map<string, FakePayout>();
  /** Every request received, with its headers (to check that no secret travels in the clear beyond them). */
  readonly requests: { method: string; path: string; headers: IncomingMessage['headers']; body: string; status: number }[] = [];
  private server: Server | undefined;
  private faults: Fault[] = [];
  /** While set, a submission is acted on but never answered (to kill Colibri while it waits for the answer). */
  holdAnswers = false;
  private readonly held: ServerResponse[] = [];
  port = 0;

  /** One dLocal account: its credentials (the defaults are the instance's in the tests). */
  constructor(credentials: { clientId?: string; clientSecret?: string; secretKey?: string; login?: string } = {}) {
    this.clientId = credentials.clientId ?? 'colibri-test-client-id';
    this.clientSecret = credentials.clientSecret ?? 'colibri-test-client-secret-4242';
    this.secretKey = credentials.secretKey ?? 'colibri-test-secret-key-0123456789';
    this.login = credentials.login ?? 'colibri-test-login';
  }

  /** Every token issued so far stops being accepted (as if each had expired). */
  expireTokens(): void {
    for (const token of this.tokens.keys()) this.tokens.set(token, 0);
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const response of this.held) response.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Colibri's settings for this fake. */
  env(notificationUrl?: string): Record<string, string> {
    return {
      COLIBRI_DLOCAL_API_URL: this.url,
      COLIBRI_DLOCAL_CLIENT_ID: this.clientId,
      COLIBRI_DLOCAL_CLIENT_SECRET: this.clientSecret,
      COLIBRI_DLOCAL_SECRET_KEY: this.secretKey,
      ...(notificationUrl ? { COLIBRI_DLOCAL_NOTIFICATION_URL: notificationUrl } : {}),
    };
  }

  /** The next `times` submissions meet this fault (a 500 before acting, or the answer lost after acting). */
  fail(fault: Fault, times = 1): void {
    for (let i = 0; i < times; i += 1) this.faults.push(fault);
  }

  byExternalId(externalId: string): FakePayout | undefined {
    return [...this.payouts.values()].find((payout) => payout.externalId === externalId);
  }

  /** Moves a payout to a new status (PAID, REJECTED with a status code, CANCELLED, DELIVERED…). */
  settle(externalId: string, status: string, statusCode = STATUS_CODES[status]!, detail = status.toLowerCase()): FakePayout {
    const payout = this.byExternalId(externalId);
    if (!payout) throw new Error(`no payout ${externalId}`);
    payout.status = status;
    payout.statusCode = statusCode;
    payout.statusDetail = detail;
    payout.history.push({ status, statusCode });
    return payout;
  }

  /** The recipient's bank returned a paid transfer: dLocal reports the payout REJECTED after PAID. */
  returnPayout(externalId: string): FakePayout {
    const payout = this.byExternalId(externalId);
    if (payout?.status !== 'PAID') throw new Error(`payout ${externalId} is not PAID`);
    return this.settle(externalId, 'REJECTED', '300', 'returned by the beneficiary bank');
  }

  /** A payout as dLocal shows it (answers and notifications). */
  view(payout: FakePayout, state: { status: string; statusCode: string } = payout): Record<string, unknown> {
    const body = payout.body as { amount: number; currency: string; currency_to_pay?: string; country: string };
    return {
      id: payout.id, external_id: payout.externalId, status: state.status, status_code: state.statusCode, status_detail: state === payout ? payout.statusDetail : state.status.toLowerCase(),
      amount: body.amount, currency: body.currency, currency_to_pay: body.currency_to_pay ?? body.currency, country: body.country, created_date: '2026-11-28T01:00:00.000Z',
    };
  }

  /**
   * Posts signed notifications of a payout to the URL it was submitted with: each state of `states` (by
   * default its current one), in that order, each `times` times. Answers each response's status and body.
   */
  async notify(externalId: string, options: { states?: readonly { status: string; statusCode: string }[]; times?: number; signWith?: string; url?: string } = {}): Promise<{ status: number; body: unknown }[]> {
    const payout = this.byExternalId(externalId);
    if (!payout) throw new Error(`no payout ${externalId}`);
    const url = options.url ?? (payout.body.notification_url as string | undefined);
    if (!url) throw new Error('the payout was submitted without a notification_url');
    const answers: { status: number; body: unknown }[] = [];
    for (const state of options.states ?? [payout]) {
      for (let i = 0; i < (options.times ?? 1); i += 1) {
        const body = JSON.stringify(this.view(payout, state));
        const date = new Date().toISOString();
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-Date': date, 'X-Login': this.login, Authorization: `V2-HMAC-SHA256, Signature: ${dlocalSignature(options.signWith ?? this.secretKey, this.login, date, body)}` },
          body,
        });
        const text = await response.text();
        answers.push({ status: response.status, body: text ? JSON.parse(text) : null });
      }
    }
    return answers;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', this.url);
    const answer = (status: number, payload: unknown) => {
      this.requests.push({ method: request.method ?? '', path: url.pathname + url.search, headers: request.headers, body, status });
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    };
    if (request.method === 'POST' && url.pathname === '/oauth/token') return this.issueToken(body, answer);
    const refused = this.authentication(request, body);
    if (refused) return answer(refused.status, refused.error);

    if (request.method === 'POST' && url.pathname === '/payouts/v3') return this.submit(body, answer, response);
    if (request.method === 'GET' && url.pathname === '/payouts/v3') {
      const payout = this.byExternalId(url.searchParams.get('external_id') ?? '');
      return payout ? answer(200, this.view(payout)) : answer(404, { code: 5009, message: 'Payout not found with this ID.' });
    }
    const byId = /^\/payouts\/v3\/([^/]+)$/.exec(url.pathname);
    if (request.method === 'GET' && byId) {
      const payout = this.payouts.get(decodeURIComponent(byId[1]!));
      return payout ? answer(200, this.view(payout)) : answer(404, { code: 5009, message: 'Payout not found with this ID.' });
    }
    return answer(404, { code: 3000, message: 'Invalid params: unknown operation' });
  }

  /** The client-credentials grant: a new token for this account's client id and secret, or 401. */
  private issueToken(raw: string, answer: (status: number, payload: unknown) => void): void {
    this.tokenRequests += 1;
    let grant: { grant_type?: unknown; client_id?: unknown; client_secret?: unknown };
    try {
      grant = JSON.parse(raw) as typeof grant;
    } catch {
      return answer(400, { code: 3000, message: 'Invalid params: body is not JSON' });
    }
    if (grant.grant_type !== 'client_credentials') return answer(400, { code: 3000, message: 'Invalid params', param: 'grant_type' });
    if (grant.client_id !== this.clientId || grant.client_secret !== this.clientSecret) return answer(401, { code: 4001, message: 'Invalid credentials.' });
    const token = `fake-token-${randomUUID()}`;
    this.tokens.set(token, Date.now() + this.tokenLifetimeSeconds * 1000);
    return answer(200, { access_token: token, scope: 'payouts', expires_in: this.tokenLifetimeSeconds, token_type: 'Bearer' });
  }

  /** The documented headers, a live token and the payload signature, or dLocal's refusal. */
  private authentication(request: IncomingMessage, body: string): { status: number; error: unknown } | undefined {
    const header = (name: string) => request.headers[name] as string | undefined;
    const bearer = /^Bearer (\S+)$/.exec(header('authorization') ?? '')?.[1];
    const expiresAt = bearer === undefined ? undefined : this.tokens.get(bearer);
    if (this.refuseBearer || expiresAt === undefined || Date.now() >= expiresAt) return { status: 401, error: { code: 401, message: 'Unauthorized: missing, unknown or expired access token' } };
    const date = header('x-date');
    if (!date || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(date)) return { status: 400, error: { code: 3001, message: 'Empty params', param: 'X-Date' } };
    if (header('x-version') !== '3.0') return { status: 400, error: { code: 3000, message: 'Invalid params', param: 'X-Version' } };
    if (body !== '' && header('payload-signature') !== payloadSignature(this.secretKey, body)) return { status: 403, error: { code: 4001, message: 'Invalid credentials.' } };
    if (body !== '' && !(header('content-type') ?? '').startsWith('application/json')) return { status: 400, error: { code: 3000, message: 'Invalid params', param: 'Content-Type' } };
    return undefined;
  }

  private submit(raw: string, answer: (status: number, payload: unknown) => void, response: ServerResponse): void {
    const fault = this.faults.shift();
    if (fault === 'HTTP_500') return answer(500, { code: 7003, message: 'Could not make the payout.' });
    if (fault === 'REFUSE_CONNECTION') {
      response.socket?.destroy();
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return answer(400, { code: 3000, message: 'Invalid params: body is not JSON' });
    }
    const problems = payoutRequestProblems(body);
    if (problems.length > 0) return answer(400, { code: 3000, message: `Invalid params ${problems.join('; ')}`, param: problems[0]!.split(' ')[0] });
    const externalId = body.external_id as string;
    if (this.byExternalId(externalId)) return answer(400, { code: 5011, message: 'External ID already used.' });
    const account = (body.beneficiary as { bank_account: { account: string } }).bank_account.account;
    const payout: FakePayout = { id: `D-4-${randomUUID()}`, externalId, body, status: 'PENDING', statusCode: '100', statusDetail: 'pending', history: [{ status: 'PENDING', statusCode: '100' }] };
    this.payouts.set(payout.id, payout);
    if (account.endsWith('3000')) this.settle(externalId, 'REJECTED', '801', 'ERROR_ACCOUNT_CLOSED');
    if (this.holdAnswers) {
      this.held.push(response);
      return;
    }
    // The payout exists at dLocal; only the answer is lost on its way back.
    if (fault === 'DROP_AFTER_ACTING') {
      response.socket?.destroy();
      return;
    }
    answer(200, this.view(payout));
  }
}
