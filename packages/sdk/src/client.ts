import { randomUUID } from 'node:crypto';
import { createParser } from 'eventsource-parser';
import createClient, { type Client } from 'openapi-fetch';
import { normaliseAmounts, type Amount, type WithAmounts } from './amounts.js';
import { ColibriConnectionError, ColibriError, retryAfterSeconds } from './errors.js';
import type { components, operations, paths } from './generated/openapi.js';
import { webhookEndpointsOf } from './webhook-endpoints.js';
import type { CallbackEvent } from './webhooks.js';

/** The named schemas of the OpenAPI document: `Schemas['Payment']`, `Schemas['TransactionDetails']`… */
export type Schemas = components['schemas'];
type Op = operations;
/** The JSON request body of an operation, by operation id. */
export type BodyOf<K extends keyof Op> = Op[K] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The JSON answer of an operation's success, by operation id. */
export type DataOf<K extends keyof Op> = Op[K] extends { responses: infer R }
  ? R extends { 200: { content: { 'application/json': infer D } } }
    ? D
    : R extends { 201: { content: { 'application/json': infer D } } }
      ? D
      : never
  : never;
/** The query parameters of an operation, by operation id. */
export type QueryOf<K extends keyof Op> = Op[K] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export interface ColibriOptions {
  /** The service's address, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** API key and secret: the SDK fetches tokens with them and renews them before they expire. */
  apiKey?: string;
  apiSecret?: string;
  /** An access token to use instead of a key and secret (it is not renewed, except by refresh_token). */
  token?: string;
  /** Attempts after the first for network errors, 5xx and 429 (default 3). */
  maxRetries?: number;
  /** The first backoff in milliseconds, doubled on each retry with jitter (default 250). */
  retryBaseMs?: number;
  /** A fetch to use instead of the global one. */
  fetch?: (input: Request) => Promise<Response>;
}

/** A token is renewed when it has less than this left (tokens live 5 minutes). */
const RENEW_BEFORE_MS = 30_000;
const MAX_BACKOFF_MS = 10_000;

/**
 * The Colibri client. `colibri.api` is the typed client generated from the OpenAPI document
 * (openapi-fetch); the resource methods on top of it return the answer's data or throw a
 * `ColibriError` with the spec's codes. Every call goes through one policy:
 * - an access token from the API key and secret, renewed before it expires, replaced by each
 *   `refresh_token` an answer returns, and fetched again once if the service answers 401;
 * - an `Idempotency-Key` on every POST but `/auth` (one per call, the same on each retry);
 * - retries with backoff on network errors, 5xx and 429 (waiting for `Retry-After`), for requests
 *   that are safe to repeat: every GET, PUT and DELETE, and every POST with an idempotency key.
 * @example
 * const colibri = new Colibri({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'ck_…', apiSecret: 'cs_…' });
 * const payment = await colibri.payments.send({ contract_id, reference_id: 'order-1', public_person_id, public_card_id,
 *   payment: { amount: 25, method: 'CREDITCARD', asset: 'BRL', installments: 1 } });
 */
export class Colibri {
  readonly api: Client<paths>;
  readonly baseUrl: string;
  private readonly options: ColibriOptions;
  private readonly fetchImpl: (input: Request) => Promise<Response>;
  private token: string | undefined;
  private tokenExpiresAtMs = 0;
  private pendingToken: Promise<string> | undefined;

  constructor(options: ColibriOptions) {
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? ((input) => fetch(input));
    if (options.token) this.useToken(options.token);
    this.api = createClient<paths>({ baseUrl: this.baseUrl, fetch: (request) => this.send(request) });
  }

  /** A valid access token: the current one, or a new one from the key and secret. */
  async accessToken(): Promise<string> {
    if (this.token && (this.tokenExpiresAtMs === 0 || this.tokenExpiresAtMs - Date.now() > RENEW_BEFORE_MS)) return this.token;
    if (!this.options.apiKey || !this.options.apiSecret) {
      if (this.token) return this.token;
      throw new TypeError('Colibri: give apiKey and apiSecret, or token');
    }
    this.pendingToken ??= this.authenticate().finally(() => (this.pendingToken = undefined));
    return this.pendingToken;
  }

  private async authenticate(): Promise<string> {
    const answer = await unwrap(await this.api.POST('/auth', { body: { apiKey: this.options.apiKey!, apiSecret: this.options.apiSecret! } as never }));
    const token = (answer as { token: string }).token;
    this.useToken(token);
    return token;
  }

  private useToken(token: string): void {
    this.token = token;
    this.tokenExpiresAtMs = tokenExpiry(token);
  }

  /** The fetch under `api`: token, idempotency key, retries and refresh tokens (see the class). */
  private async send(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const isAuth = url.pathname === '/auth';
    const headers = new Headers(request.headers);
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
    if (!isAuth && !headers.has('idempotency-key') && request.method === 'POST') headers.set('idempotency-key', randomUUID());
    const canAuthenticate = !isAuth && !headers.has('x-auth-token') && (this.token !== undefined || this.options.apiKey !== undefined);
    const retryable = request.method !== 'POST' || headers.has('idempotency-key');
    const maxRetries = this.options.maxRetries ?? 3;
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      if (canAuthenticate) headers.set('x-auth-token', await this.accessToken());
      let response: Response;
      try {
        response = await this.fetchImpl(new Request(url, { method: request.method, headers, body, signal: request.signal }));
      } catch (error) {
        if (request.signal.aborted) throw error;
        if (!retryable || attempt >= maxRetries) throw new ColibriConnectionError(`Colibri: no answer from ${url.origin} (${String(error)})`, { cause: error });
        await sleep(this.backoffMs(attempt));
        continue;
      }
      if (response.status === 401 && canAuthenticate && !renewed && this.options.apiKey) {
        // The token expired or was revoked between our check and the call: fetch a new one, once.
        renewed = true;
        this.token = undefined;
        await response.body?.cancel();
        continue;
      }
      if ((response.status >= 500 || response.status === 429) && (retryable || response.status === 429) && attempt < maxRetries) {
        const retryAfter = response.headers.get('retry-after');
        const waitMs = retryAfter ? (retryAfterSeconds(retryAfter) ?? 1) * 1000 : this.backoffMs(attempt);
        await response.body?.cancel();
        await sleep(Math.min(waitMs, 60_000));
        continue;
      }
      if (!isAuth) await this.takeRefreshToken(response);
      return response;
    }
  }

  private backoffMs(attempt: number): number {
    const base = (this.options.retryBaseMs ?? 250) * 2 ** attempt;
    return Math.min(MAX_BACKOFF_MS, base / 2 + Math.random() * (base / 2));
  }

  /** Answers carry a new 5-minute token as `refresh_token`: the next call uses it. */
  private async takeRefreshToken(response: Response): Promise<void> {
    if (!(response.headers.get('content-type') ?? '').includes('application/json')) return;
    try {
      const body: unknown = await response.clone().json();
      if (body && typeof body === 'object' && 'refresh_token' in body && typeof body.refresh_token === 'string') this.useToken(body.refresh_token);
    } catch {
      // Not JSON after all: nothing to take.
    }
  }

  /** The user and merchant of the current token. */
  me = async (): Promise<DataOf<'getMe'>> => unwrap(await this.api.GET('/me'));

  /** The caller's merchant: its contract ids and the service's mode. */
  merchant = async (): Promise<Schemas['Merchant']> => unwrap(await this.api.GET('/merchant'));

  readonly persons = {
    create: async (body: BodyOf<'createPerson'>): Promise<Schemas['Person']> => unwrap(await this.api.POST('/checkout/person', { body })),
  };

  readonly cards = {
    create: async (body: BodyOf<'createCard'>): Promise<Schemas['Card']> => unwrap(await this.api.POST('/checkout/card', { body })),
  };

  readonly payments = {
    /** One page of the merchant's payments, newest first (filters: reference_id, status, method, from, to, created_before). */
    list: async (query: Partial<QueryOf<'listPayments'>> = {}): Promise<Schemas['PaymentPage']> =>
      unwrap(await this.api.GET('/payments', { params: { query: query as QueryOf<'listPayments'> } })),
    /**
     * Every payment matching the query, newest first, page after page. The walk pins `created_before` to
     * just after the first page's newest payment, so payments made meanwhile do not shift the pages.
     */
    all: (query: Partial<QueryOf<'listPayments'>> = {}): AsyncGenerator<Schemas['PaymentSummary']> => this.paymentsPinned(query),
    /** sendPayment: `payment.amount` may be a number or a decimal string; the service gets the string the spec fixes. */
    send: async (body: WithAmounts<BodyOf<'sendPayment'>>): Promise<Schemas['Payment']> =>
      unwrap(await this.api.POST('/checkout/sendPayment', { body: normaliseAmounts('sendPayment', body) as BodyOf<'sendPayment'> })),
    /** Captures a pre-authorisation; `amount` (a number in the spec) may be given as a decimal string too. */
    capture: async (paymentToken: string, amount: Amount): Promise<Schemas['PaymentStatus']> =>
      unwrap(
        await this.api.POST('/checkout/{payment_token}/capture', {
          params: { path: { payment_token: paymentToken } },
          body: normaliseAmounts('capturePayment', { amount }) as BodyOf<'capturePayment'>,
        }),
      ),
    cancel: async (paymentToken: string): Promise<Schemas['PaymentStatus']> =>
      unwrap(await this.api.POST('/checkout/{payment_token}/cancel', { params: { path: { payment_token: paymentToken } } })),
    details: async (paymentToken: string): Promise<Schemas['TransactionDetails']> =>
      unwrap(await this.api.GET('/transactionDetails/{payment_token}', { params: { path: { payment_token: paymentToken } } })),
    /**
     * The installment options of the merchant's plan for a price (and a card's first digits, for its
     * scheme's rates), as sendPayment charges them.
     * @example const { options } = await colibri.payments.installments({ amount: '102.00', asset: 'BRL', card_bin: '411111' });
     */
    installments: async (query: { amount: Amount; asset: string; card_bin?: string }): Promise<DataOf<'listInstallmentOptions'>> =>
      unwrap(await this.api.GET('/installments', { params: { query: { ...query, amount: String(query.amount) } } })),
    /**
     * Polls transaction details until the payment leaves PROCESSING (or CREATED), for scripts and tests;
     * a server should rather wait for the callback.
     */
    waitForOutcome: async (paymentToken: string, { timeoutMs = 30_000, intervalMs = 200 } = {}): Promise<Schemas['TransactionDetails']> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const details = await this.payments.details(paymentToken);
        if (!['PROCESSING', 'CREATED'].includes(details.general_info.transaction_status) || Date.now() > deadline) return details;
        await sleep(intervalMs);
      }
    },
  };

  readonly checkout = {
    generate: async (body: BodyOf<'generateCheckout'>): Promise<Schemas['CheckoutSession']> => unwrap(await this.api.POST('/checkout/generate', { body })),
    get: async (checkoutId: string): Promise<Schemas['Checkout']> => unwrap(await this.api.GET('/checkout/{checkout_id}', { params: { path: { checkout_id: checkoutId } } })),
  };

  readonly refunds = {
    /** `amount` (a number in the spec) may be given as a decimal string too; absent, the whole remainder. */
    create: async (body: WithAmounts<BodyOf<'createRefund'>>): Promise<Schemas['RefundCreated']> =>
      unwrap(await this.api.POST('/refund', { body: normaliseAmounts('createRefund', body) as BodyOf<'createRefund'> })),
    get: async (refundId: number | string): Promise<Schemas['Refund']> => unwrap(await this.api.GET('/refund/{refund_id}', { params: { path: { refund_id: String(refundId) } } })),
  };

  readonly disputes = {
    list: async (query: Partial<QueryOf<'listDisputes'>> = {}): Promise<Schemas['DisputePage']> =>
      unwrap(await this.api.GET('/disputes', { params: { query: query as QueryOf<'listDisputes'> } })),
    /** Every dispute matching the query, newest first, page after page. */
    all: (query: Partial<QueryOf<'listDisputes'>> = {}): AsyncGenerator<Schemas['DisputeItem']> =>
      numberedPages((page) => this.disputes.list({ ...query, page }), (p) => ({ items: p.content, last: p.last })),
    get: async (id: string): Promise<Schemas['Dispute']> => unwrap(await this.api.GET('/disputes/{dispute_id}', { params: { path: { dispute_id: id } } })),
    /** Text evidence: a field sent replaces the one kept; an empty string removes it. */
    addEvidence: async (id: string, fields: BodyOf<'addDisputeEvidence'>): Promise<Schemas['Dispute']> =>
      unwrap(await this.api.POST('/disputes/{dispute_id}/evidence', { params: { path: { dispute_id: id } }, body: fields })),
    /** Submits the evidence (final): the dispute is UNDER_REVIEW until the processor rules. */
    submit: async (id: string): Promise<Schemas['Dispute']> => unwrap(await this.api.POST('/disputes/{dispute_id}/submit', { params: { path: { dispute_id: id } } })),
    /** Accepts the dispute: the held money stays with the processor. */
    accept: async (id: string): Promise<Schemas['Dispute']> => unwrap(await this.api.POST('/disputes/{dispute_id}/accept', { params: { path: { dispute_id: id } } })),
  };

  readonly settlements = {
    /** One page of the merchant's settlements to its own bank account, newest first (filters: status, from, to). */
    list: async (query: Partial<QueryOf<'listSettlements'>> = {}): Promise<Schemas['SettlementPage']> =>
      unwrap(await this.api.GET('/settlements', { params: { query: query as QueryOf<'listSettlements'> } })),
    /** Every settlement matching the query, newest first, page after page. */
    all: (query: Partial<QueryOf<'listSettlements'>> = {}): AsyncGenerator<Schemas['SettlementItem']> =>
      numberedPages((page) => this.settlements.list({ ...query, page }), (p) => ({ items: p.content, last: p.last })),
    get: async (id: string): Promise<Schemas['Settlement']> => unwrap(await this.api.GET('/settlements/{settlement_id}', { params: { path: { settlement_id: id } } })),
    /** Where each currency's money goes, its minimum, and whether settlements are paused or held. */
    settings: async (): Promise<Schemas['SettlementSettings']> => unwrap(await this.api.GET('/settlements/settings')),
    /** Changes what it names (pause, a currency's destination or minimum); the rest stays. */
    updateSettings: async (body: BodyOf<'updateSettlementSettings'>): Promise<Schemas['SettlementSettings']> => unwrap(await this.api.PUT('/settlements/settings', { body })),
  };

  readonly payouts = {
    create: async (body: BodyOf<'createPayouts'>): Promise<Schemas['PayoutBatch']> => unwrap(await this.api.POST('/payoutTransaction', { body })),
    get: async (txId: string): Promise<Schemas['PayoutTransaction']> => unwrap(await this.api.GET('/payoutTransaction/{tx_id}', { params: { path: { tx_id: txId } } })),
  };

  readonly subscriptions = {
    create: async (body: BodyOf<'createSubscription'>): Promise<Schemas['SubscriptionCreated']> => unwrap(await this.api.POST('/subscriptions', { body })),
    get: async (id: string): Promise<DataOf<'getSubscription'>> => unwrap(await this.api.GET('/subscriptions/{subscription_id}', { params: { path: { subscription_id: id } } })),
    list: async (query: Partial<QueryOf<'listSubscriptions'>> = {}): Promise<Schemas['SubscriptionPage']> =>
      unwrap(await this.api.GET('/subscriptions', { params: { query: query as QueryOf<'listSubscriptions'> } })),
    /** Every subscription, page after page. */
    all: (query: Partial<QueryOf<'listSubscriptions'>> = {}): AsyncGenerator<Schemas['Subscription']> =>
      numberedPages((page) => this.subscriptions.list({ ...query, page }), (p) => ({ items: p.content, last: p.page + 1 >= p.total_pages })),
    cancel: async (id: string): Promise<DataOf<'cancelSubscription'>> =>
      unwrap(await this.api.POST('/subscriptions/{subscription_id}/cancel', { params: { path: { subscription_id: id } } })),
    charge: async (id: string, body: BodyOf<'createSubscriptionCharge'>): Promise<Schemas['SubscriptionChargeCreated']> =>
      unwrap(await this.api.POST('/subscriptions/{subscription_id}/charge', { params: { path: { subscription_id: id } }, body })),
    charges: async (id: string, query: Partial<QueryOf<'listSubscriptionCharges'>> = {}): Promise<Schemas['SubscriptionChargePage']> =>
      unwrap(
        await this.api.GET('/subscriptions/{subscription_id}/charges', {
          params: { path: { subscription_id: id }, query: query as QueryOf<'listSubscriptionCharges'> },
        }),
      ),
  };

  readonly reports = {
    list: async (query: Partial<QueryOf<'listReports'>> = {}): Promise<Schemas['ReportPage']> =>
      unwrap(await this.api.GET('/reports/myreports/report', { params: { query: query as QueryOf<'listReports'> } })),
    /** Every saved report, page after page. */
    all: (query: Partial<QueryOf<'listReports'>> = {}): AsyncGenerator<Schemas['Report']> =>
      numberedPages((page) => this.reports.list({ ...query, page }), (p) => ({ items: p.content, last: p.last })),
    get: async (id: string): Promise<Schemas['Report']> => unwrap(await this.api.GET('/reports/myreports/report/{reportId}', { params: { path: { reportId: id } } })),
    create: async (body: BodyOf<'createReport'>): Promise<Schemas['Report']> => unwrap(await this.api.POST('/reports/myreports/report', { body })),
    /**
     * The report's rows as a stream of CSV or JSON bytes. With `count: true` the service counts the rows
     * first and the answer's `X-Total-Count` header gives their number (for a progress percentage).
     */
    export: async (id: string, format: 'csv' | 'json' = 'csv', options: { count?: boolean } = {}): Promise<Response> => {
      const answer = await this.api.GET('/reports/myreports/report/{reportId}/export', {
        params: { path: { reportId: id }, query: { format, ...(options.count ? { count: true } : {}) } },
        parseAs: 'stream',
      });
      if (!answer.response.ok) throw ColibriError.from(answer.response.status, await answer.response.json().catch(() => undefined), answer.response.headers);
      return answer.response;
    },
  };

  readonly events = {
    list: async (query: QueryOf<'listEvents'> = {}): Promise<Schemas['EventPage']> => unwrap(await this.api.GET('/webhooks/events', { params: { query } })),
    /** Every event matching the query, newest first, following next_cursor. */
    all: (query: QueryOf<'listEvents'> = {}): AsyncGenerator<Schemas['Event']> => this.eventPages(query),
    get: async (id: string): Promise<Schemas['Event']> => unwrap(await this.api.GET('/webhooks/events/{id}', { params: { path: { id } } })),
    retry: async (id: string): Promise<Schemas['Event']> => unwrap(await this.api.POST('/webhooks/events/{id}/retry', { params: { path: { id } } })),
    /**
     * The merchant's events as they happen (`GET /webhooks/events/stream`), as callback bodies. The
     * stream reconnects by itself, with a fresh token and Last-Event-ID, until `signal` aborts; after
     * a reconnection an event may come twice (use its id).
     */
    stream: (options: { since?: Date; signal?: AbortSignal } = {}): AsyncGenerator<CallbackEvent> => this.streamEvents(options),
  };

  readonly webhookSecret = {
    rotate: async (): Promise<DataOf<'rotateWebhookSecret'>> => unwrap(await this.api.POST('/webhooks/secret/rotate')),
  };

  /** The merchant's webhook endpoints: create, list, get, update, delete, rotateSecret (webhook-endpoints.ts). */
  readonly webhookEndpoints = webhookEndpointsOf(() => this.api, unwrap);

  readonly sandbox = {
    /** The payer pays a PIX or boleto payment. */
    pay: async (paymentToken: string): Promise<DataOf<'sandboxPayPayment'>> =>
      unwrap(await this.api.POST('/sandbox/payments/{payment_token}/pay', { params: { path: { payment_token: paymentToken } } })),
    advanceClock: async (seconds: number): Promise<DataOf<'advanceClock'>> => unwrap(await this.api.POST('/sandbox/clock/advance', { body: { seconds } })),
    clock: async (): Promise<DataOf<'getClock'>> => unwrap(await this.api.GET('/sandbox/clock')),
    /** The acquirer disputes a paid payment now (all that can be disputed when `amount` is absent). */
    dispute: async (paymentToken: string, body: BodyOf<'sandboxDisputePayment'> = {}): Promise<DataOf<'sandboxDisputePayment'>> =>
      unwrap(await this.api.POST('/sandbox/payments/{payment_token}/dispute', { params: { path: { payment_token: paymentToken } }, body })),
    /** The acquirer rules on a dispute under review. */
    closeDispute: async (disputeId: string, outcome: 'WON' | 'LOST'): Promise<DataOf<'sandboxCloseDispute'>> =>
      unwrap(await this.api.POST('/sandbox/disputes/{dispute_id}/close', { params: { path: { dispute_id: disputeId } }, body: { outcome } })),
  };

  private async *eventPages(query: QueryOf<'listEvents'>): AsyncGenerator<Schemas['Event']> {
    let cursor: string | undefined;
    do {
      const page = await this.events.list({ ...query, ...(cursor ? { cursor } : {}) });
      yield* page.events;
      cursor = page.has_more && page.next_cursor ? page.next_cursor : undefined;
    } while (cursor);
  }

  private async *streamEvents(options: { since?: Date; signal?: AbortSignal }): AsyncGenerator<CallbackEvent> {
    let lastId = options.since?.toISOString();
    let failures = 0;
    while (!options.signal?.aborted) {
      const queue: CallbackEvent[] = [];
      const parser = createParser({
        onEvent: (message) => {
          if (message.id) lastId = message.id;
          queue.push(JSON.parse(message.data) as CallbackEvent);
        },
      });
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream', 'x-auth-token': await this.accessToken() };
        if (lastId) headers['last-event-id'] = lastId;
        const response = await this.fetchImpl(new Request(`${this.baseUrl}/webhooks/events/stream`, { headers, ...(options.signal ? { signal: options.signal } : {}) }));
        if (!response.ok || !response.body) {
          const error = ColibriError.from(response.status, await response.json().catch(() => undefined), response.headers);
          if (response.status === 401 && this.options.apiKey) this.token = undefined;
          // A client error other than an expired token will not mend by itself.
          if (response.status >= 400 && response.status < 500 && response.status !== 401 && response.status !== 429) throw error;
          throw Object.assign(error, { retry: true });
        }
        failures = 0;
        const decoder = new TextDecoder();
        // The reader is cancelled on abort, so a read waiting for the next chunk ends at once rather
        // than at the service's next event or heartbeat.
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        const stop = () => void reader.cancel().catch(() => undefined);
        options.signal?.addEventListener('abort', stop, { once: true });
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done || options.signal?.aborted) break;
            parser.feed(decoder.decode(value, { stream: true }));
            while (queue.length > 0) yield queue.shift()!;
          }
        } finally {
          options.signal?.removeEventListener('abort', stop);
        }
        if (options.signal?.aborted) return;
        // The service ended the stream (its token expired): reconnect with a fresh one.
        if (this.options.apiKey) this.token = undefined;
      } catch (error) {
        if (options.signal?.aborted) return;
        if (error instanceof ColibriError && !(error as ColibriError & { retry?: boolean }).retry) throw error;
        failures++;
        if (failures > 10) throw error;
        await sleep(this.backoffMs(Math.min(failures, 5)));
      }
    }
  }

  /** Every payment of a query, the pages pinned by `created_before` to just after the first page's newest. */
  private async *paymentsPinned(query: Partial<QueryOf<'listPayments'>>): AsyncGenerator<Schemas['PaymentSummary']> {
    const first = await this.payments.list({ ...query, page: 0 });
    yield* first.content;
    const newest = first.content[0];
    if (first.last || !newest) return;
    const pinned = query.created_before ?? new Date(Date.parse(`${newest.created_at.replace(' ', 'T')}Z`) + 1).toISOString();
    yield* numberedPages((page) => this.payments.list({ ...query, created_before: pinned, page: page + 1 }), (p) => ({ items: p.content, last: p.last }));
  }
}

/** The data of a successful openapi-fetch answer, or the error as a ColibriError. */
export function unwrap<T>(answer: { data?: T; error?: unknown; response: Response }): NonNullable<T> {
  if (!answer.response.ok || answer.error !== undefined) throw ColibriError.from(answer.response.status, answer.error, answer.response.headers);
  return answer.data as NonNullable<T>;

}

async function* numberedPages<P, T>(fetchPage: (page: number) => Promise<P>, read: (page: P) => { items: readonly T[]; last: boolean }): AsyncGenerator<T> {
  for (let page = 0; ; page++) {
    const { items, last } = read(await fetchPage(page));
    yield* items;
    if (last || items.length === 0) return;
  }
}

/** The expiry of a JWT in ms since the epoch, or 0 when it cannot be read (then it is used until refused). */
function tokenExpiry(token: string): number {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : 0;
  } catch {
    return 0;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
