import { createParser } from 'eventsource-parser';
import createClient, { type Client } from 'openapi-fetch';
import { normaliseAmounts, type Amount, type WithAmounts } from './amounts.js';
import { ColibriError } from './errors.js';
import type { components, operations, paths } from './generated/openapi.js';
import { sleep, Transport, type CallOptions, type ColibriOptions, type PostOptions, type RequestOptions } from './transport.js';
import { webhookEndpointsOf } from './webhook-endpoints.js';
import type { CallbackEvent } from './webhooks.js';

export type { ColibriOptions, PostOptions, RequestOptions } from './transport.js';

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

/**
 * The Colibri client. `colibri.api` is the typed client generated from the OpenAPI document
 * (openapi-fetch); the resource methods on top of it return the answer's data or throw a
 * `ColibriError` (as its family's class: `ValidationError`, `NotFoundError`…) with the spec's codes.
 * Every call goes through one policy (transport.ts):
 * - an access token from the API key and secret, renewed before it expires, replaced by each
 *   `refresh_token` an answer returns, and fetched again once if the service answers 401;
 * - an `Idempotency-Key` on every POST but `/auth`: the caller's `idempotencyKey`, or one the SDK makes
 *   per call; the same on each retry;
 * - retries with backoff on network errors, 5xx and 429 (waiting for `Retry-After`), for requests
 *   that are safe to repeat: every GET, PUT and DELETE, and every POST with an idempotency key;
 * - a time limit per call (`timeoutMs`, retries included) and the caller's `signal`.
 * Every method takes, as its last argument, `{ timeoutMs, signal }`, and every POST `{ idempotencyKey }` too.
 * @example
 * const colibri = new Colibri({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'ck_…', apiSecret: 'cs_…', timeoutMs: 20_000 });
 * const payment = await colibri.payments.send({ contract_id, reference_id: 'order-1', public_person_id, public_card_id,
 *   payment: { amount: 25, method: 'CREDITCARD', asset: 'BRL', installments: 1 } }, { idempotencyKey: `order-1-payment` });
 */
export class Colibri {
  readonly api: Client<paths>;
  readonly baseUrl: string;
  private readonly transport: Transport;

  constructor(options: ColibriOptions) {
    this.transport = new Transport(options);
    this.baseUrl = this.transport.baseUrl;
    this.api = createClient<paths>({ baseUrl: this.baseUrl, fetch: (request) => this.transport.send(request) });
  }

  /**
   * A valid access token: the current one, or a new one from the key and secret.
   * @example const token = await colibri.accessToken(); // for a call the SDK does not make itself
   */
  async accessToken(options: RequestOptions = {}): Promise<string> {
    return this.transport.accessToken(options.signal);
  }

  /** The openapi-fetch option that sends one call with these options. */
  private via(options: CallOptions): { fetch: (request: Request) => Promise<Response> } {
    return { fetch: (request) => this.transport.send(request, options) };
  }

  /** The user and merchant of the current token. */
  me = async (options: RequestOptions = {}): Promise<DataOf<'getMe'>> => unwrap(await this.api.GET('/me', this.via(options)));

  /** The caller's merchant: its contract ids and the service's mode. */
  merchant = async (options: RequestOptions = {}): Promise<Schemas['Merchant']> => unwrap(await this.api.GET('/merchant', this.via(options)));

  readonly persons = {
    /** @example const person = await colibri.persons.create({ name, email, tax_id, tax_id_type: 'CPF' }, { idempotencyKey: `person-${customerId}` }); */
    create: async (body: BodyOf<'createPerson'>, options: PostOptions = {}): Promise<Schemas['Person']> =>
      unwrap(await this.api.POST('/checkout/person', { body, ...this.via(options) })),
  };

  readonly cards = {
    create: async (body: BodyOf<'createCard'>, options: PostOptions = {}): Promise<Schemas['Card']> => unwrap(await this.api.POST('/checkout/card', { body, ...this.via(options) })),
  };

  readonly payments = {
    /** One page of the merchant's payments, newest first (filters: reference_id, status, method, from, to, created_before). */
    list: async (query: Partial<QueryOf<'listPayments'>> = {}, options: RequestOptions = {}): Promise<Schemas['PaymentPage']> =>
      unwrap(await this.api.GET('/payments', { params: { query: query as QueryOf<'listPayments'> }, ...this.via(options) })),
    /**
     * Every payment matching the query, newest first, page after page. The walk pins `created_before` to
     * just after the first page's newest payment, so payments made meanwhile do not shift the pages.
     */
    all: (query: Partial<QueryOf<'listPayments'>> = {}, options: RequestOptions = {}): AsyncGenerator<Schemas['PaymentSummary']> => this.paymentsPinned(query, options),
    /**
     * sendPayment: `payment.amount` may be a number or a decimal string; the service gets the string the spec fixes.
     * @example await colibri.payments.send(body, { idempotencyKey: `order-${order.id}`, timeoutMs: 15_000 });
     */
    send: async (body: WithAmounts<BodyOf<'sendPayment'>>, options: PostOptions = {}): Promise<Schemas['Payment']> =>
      unwrap(await this.api.POST('/checkout/sendPayment', { body: normaliseAmounts('sendPayment', body) as BodyOf<'sendPayment'>, ...this.via(options) })),
    /** Captures a pre-authorisation; `amount` (a number in the spec) may be given as a decimal string too. */
    capture: async (paymentToken: string, amount: Amount, options: PostOptions = {}): Promise<Schemas['PaymentStatus']> =>
      unwrap(
        await this.api.POST('/checkout/{payment_token}/capture', {
          params: { path: { payment_token: paymentToken } },
          body: normaliseAmounts('capturePayment', { amount }) as BodyOf<'capturePayment'>,
          ...this.via(options),
        }),
      ),
    cancel: async (paymentToken: string, options: PostOptions = {}): Promise<Schemas['PaymentStatus']> =>
      unwrap(await this.api.POST('/checkout/{payment_token}/cancel', { params: { path: { payment_token: paymentToken } }, ...this.via(options) })),
    details: async (paymentToken: string, options: RequestOptions = {}): Promise<Schemas['TransactionDetails']> =>
      unwrap(await this.api.GET('/transactionDetails/{payment_token}', { params: { path: { payment_token: paymentToken } }, ...this.via(options) })),
    /**
     * The installment options of the merchant's plan for a price (and a card's first digits, for its
     * scheme's rates), as sendPayment charges them.
     * @example const { options } = await colibri.payments.installments({ amount: '102.00', asset: 'BRL', card_bin: '411111' });
     */
    installments: async (query: { amount: Amount; asset: string; card_bin?: string }, options: RequestOptions = {}): Promise<DataOf<'listInstallmentOptions'>> =>
      unwrap(await this.api.GET('/installments', { params: { query: { ...query, amount: String(query.amount) } }, ...this.via(options) })),
    /**
     * Polls transaction details until the payment leaves PROCESSING (or CREATED), for scripts and tests;
     * a server should rather wait for the callback. `timeoutMs` bounds the polling, not each call.
     */
    waitForOutcome: async (paymentToken: string, { timeoutMs = 30_000, intervalMs = 200, signal }: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {}): Promise<Schemas['TransactionDetails']> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const details = await this.payments.details(paymentToken, signal ? { signal } : {});
        if (!['PROCESSING', 'CREATED'].includes(details.general_info.transaction_status) || Date.now() > deadline) return details;
        await sleep(intervalMs, signal);
      }
    },
  };

  readonly checkout = {
    generate: async (body: BodyOf<'generateCheckout'>, options: PostOptions = {}): Promise<Schemas['CheckoutSession']> =>
      unwrap(await this.api.POST('/checkout/generate', { body, ...this.via(options) })),
    get: async (checkoutId: string, options: RequestOptions = {}): Promise<Schemas['Checkout']> =>
      unwrap(await this.api.GET('/checkout/{checkout_id}', { params: { path: { checkout_id: checkoutId } }, ...this.via(options) })),
  };

  readonly refunds = {
    /** `amount` (a number in the spec) may be given as a decimal string too; absent, the whole remainder. */
    create: async (body: WithAmounts<BodyOf<'createRefund'>>, options: PostOptions = {}): Promise<Schemas['RefundCreated']> =>
      unwrap(await this.api.POST('/refund', { body: normaliseAmounts('createRefund', body) as BodyOf<'createRefund'>, ...this.via(options) })),
    get: async (refundId: number | string, options: RequestOptions = {}): Promise<Schemas['Refund']> =>
      unwrap(await this.api.GET('/refund/{refund_id}', { params: { path: { refund_id: String(refundId) } }, ...this.via(options) })),
  };

  readonly disputes = {
    list: async (query: Partial<QueryOf<'listDisputes'>> = {}, options: RequestOptions = {}): Promise<Schemas['DisputePage']> =>
      unwrap(await this.api.GET('/disputes', { params: { query: query as QueryOf<'listDisputes'> }, ...this.via(options) })),
    /** Every dispute matching the query, newest first, page after page. */
    all: (query: Partial<QueryOf<'listDisputes'>> = {}, options: RequestOptions = {}): AsyncGenerator<Schemas['DisputeItem']> =>
      numberedPages((page) => this.disputes.list({ ...query, page }, options), (p) => ({ items: p.content, last: p.last })),
    get: async (id: string, options: RequestOptions = {}): Promise<Schemas['Dispute']> =>
      unwrap(await this.api.GET('/disputes/{dispute_id}', { params: { path: { dispute_id: id } }, ...this.via(options) })),
    /** Text evidence: a field sent replaces the one kept; an empty string removes it. */
    addEvidence: async (id: string, fields: BodyOf<'addDisputeEvidence'>, options: PostOptions = {}): Promise<Schemas['Dispute']> =>
      unwrap(await this.api.POST('/disputes/{dispute_id}/evidence', { params: { path: { dispute_id: id } }, body: fields, ...this.via(options) })),
    /** Submits the evidence (final): the dispute is UNDER_REVIEW until the processor rules. */
    submit: async (id: string, options: PostOptions = {}): Promise<Schemas['Dispute']> =>
      unwrap(await this.api.POST('/disputes/{dispute_id}/submit', { params: { path: { dispute_id: id } }, ...this.via(options) })),
    /** Accepts the dispute: the held money stays with the processor. */
    accept: async (id: string, options: PostOptions = {}): Promise<Schemas['Dispute']> =>
      unwrap(await this.api.POST('/disputes/{dispute_id}/accept', { params: { path: { dispute_id: id } }, ...this.via(options) })),
  };

  readonly settlements = {
    /** One page of the merchant's settlements to its own bank account, newest first (filters: status, from, to). */
    list: async (query: Partial<QueryOf<'listSettlements'>> = {}, options: RequestOptions = {}): Promise<Schemas['SettlementPage']> =>
      unwrap(await this.api.GET('/settlements', { params: { query: query as QueryOf<'listSettlements'> }, ...this.via(options) })),
    /** Every settlement matching the query, newest first, page after page. */
    all: (query: Partial<QueryOf<'listSettlements'>> = {}, options: RequestOptions = {}): AsyncGenerator<Schemas['SettlementItem']> =>
      numberedPages((page) => this.settlements.list({ ...query, page }, options), (p) => ({ items: p.content, last: p.last })),
    get: async (id: string, options: RequestOptions = {}): Promise<Schemas['Settlement']> =>
      unwrap(await this.api.GET('/settlements/{settlement_id}', { params: { path: { settlement_id: id } }, ...this.via(options) })),
    /** Where each currency's money goes, its minimum, and whether settlements are paused or held. */
    settings: async (options: RequestOptions = {}): Promise<Schemas['SettlementSettings']> => unwrap(await this.api.GET('/settlements/settings', this.via(options))),
    /** Changes what it names (pause, a currency's destination or minimum); the rest stays. */
    updateSettings: async (body: BodyOf<'updateSettlementSettings'>, options: RequestOptions = {}): Promise<Schemas['SettlementSettings']> =>
      unwrap(await this.api.PUT('/settlements/settings', { body, ...this.via(options) })),
  };

  readonly payouts = {
    create: async (body: BodyOf<'createPayouts'>, options: PostOptions = {}): Promise<Schemas['PayoutBatch']> => unwrap(await this.api.POST('/payoutTransaction', { body, ...this.via(options) })),
    get: async (txId: string, options: RequestOptions = {}): Promise<Schemas['PayoutTransaction']> =>
      unwrap(await this.api.GET('/payoutTransaction/{tx_id}', { params: { path: { tx_id: txId } }, ...this.via(options) })),
  };

  readonly subscriptions = {
    create: async (body: BodyOf<'createSubscription'>, options: PostOptions = {}): Promise<Schemas['SubscriptionCreated']> =>
      unwrap(await this.api.POST('/subscriptions', { body, ...this.via(options) })),
    get: async (id: string, options: RequestOptions = {}): Promise<DataOf<'getSubscription'>> =>
      unwrap(await this.api.GET('/subscriptions/{subscription_id}', { params: { path: { subscription_id: id } }, ...this.via(options) })),
    list: async (query: Partial<QueryOf<'listSubscriptions'>> = {}, options: RequestOptions = {}): Promise<Schemas['SubscriptionPage']> =>
      unwrap(await this.api.GET('/subscriptions', { params: { query: query as QueryOf<'listSubscriptions'> }, ...this.via(options) })),
    /** Every subscription, page after page. */
    all: (query: Partial<QueryOf<'listSubscriptions'>> = {}, options: RequestOptions = {}): AsyncGenerator<Schemas['Subscription']> =>
      numberedPages((page) => this.subscriptions.list({ ...query, page }, options), (p) => ({ items: p.content, last: p.page + 1 >= p.total_pages })),
    cancel: async (id: string, options: PostOptions = {}): Promise<DataOf<'cancelSubscription'>> =>
      unwrap(await this.api.POST('/subscriptions/{subscription_id}/cancel', { params: { path: { subscription_id: id } }, ...this.via(options) })),
    charge: async (id: string, body: BodyOf<'createSubscriptionCharge'>, options: PostOptions = {}): Promise<Schemas['SubscriptionChargeCreated']> =>
      unwrap(await this.api.POST('/subscriptions/{subscription_id}/charge', { params: { path: { subscription_id: id } }, body, ...this.via(options) })),
    charges: async (id: string, query: Partial<QueryOf<'listSubscriptionCharges'>> = {}, options: RequestOptions = {}): Promise<Schemas['SubscriptionChargePage']> =>
      unwrap(
        await this.api.GET('/subscriptions/{subscription_id}/charges', {
          params: { path: { subscription_id: id }, query: query as QueryOf<'listSubscriptionCharges'> },
          ...this.via(options),
        }),
      ),
  };

  readonly reports = {
    list: async (query: Partial<QueryOf<'listReports'>> = {}, options: RequestOptions = {}): Promise<Schemas['ReportPage']> =>
      unwrap(await this.api.GET('/reports/myreports/report', { params: { query: query as QueryOf<'listReports'> }, ...this.via(options) })),
    /** Every saved report, page after page. */
    all: (query: Partial<QueryOf<'listReports'>> = {}, options: RequestOptions = {}): AsyncGenerator<Schemas['Report']> =>
      numberedPages((page) => this.reports.list({ ...query, page }, options), (p) => ({ items: p.content, last: p.last })),
    get: async (id: string, options: RequestOptions = {}): Promise<Schemas['Report']> =>
      unwrap(await this.api.GET('/reports/myreports/report/{reportId}', { params: { path: { reportId: id } }, ...this.via(options) })),
    create: async (body: BodyOf<'createReport'>, options: PostOptions = {}): Promise<Schemas['Report']> =>
      unwrap(await this.api.POST('/reports/myreports/report', { body, ...this.via(options) })),
    /**
     * The report's rows as a stream of CSV or JSON bytes. With `count: true` the service counts the rows
     * first and the answer's `X-Total-Count` header gives their number (for a progress percentage).
     * `timeoutMs` bounds the wait for the answer to start; the stream then flows for as long as it takes.
     */
    export: async (id: string, format: 'csv' | 'json' = 'csv', options: { count?: boolean } & RequestOptions = {}): Promise<Response> => {
      const { count, ...call } = options;
      const answer = await this.api.GET('/reports/myreports/report/{reportId}/export', {
        params: { path: { reportId: id }, query: { format, ...(count ? { count: true } : {}) } },
        parseAs: 'stream',
        ...this.via({ ...call, stream: true }),
      });
      if (!answer.response.ok) throw ColibriError.from(answer.response.status, await answer.response.json().catch(() => undefined), answer.response.headers);
      return answer.response;
    },
  };

  readonly events = {
    list: async (query: QueryOf<'listEvents'> = {}, options: RequestOptions = {}): Promise<Schemas['EventPage']> =>
      unwrap(await this.api.GET('/webhooks/events', { params: { query }, ...this.via(options) })),
    /** Every event matching the query, newest first, following next_cursor. */
    all: (query: QueryOf<'listEvents'> = {}, options: RequestOptions = {}): AsyncGenerator<Schemas['Event']> => this.eventPages(query, options),
    get: async (id: string, options: RequestOptions = {}): Promise<Schemas['Event']> => unwrap(await this.api.GET('/webhooks/events/{id}', { params: { path: { id } }, ...this.via(options) })),
    retry: async (id: string, options: PostOptions = {}): Promise<Schemas['Event']> =>
      unwrap(await this.api.POST('/webhooks/events/{id}/retry', { params: { path: { id } }, ...this.via(options) })),
    /**
     * The merchant's events as they happen (`GET /webhooks/events/stream`), as callback bodies. The
     * stream reconnects by itself, with a fresh token and Last-Event-ID, until `signal` aborts (which
     * also ends a reconnection's wait at once); after a reconnection an event may come twice (use its id).
     */
    stream: (options: { since?: Date; signal?: AbortSignal } = {}): AsyncGenerator<CallbackEvent> => this.streamEvents(options),
  };

  readonly webhookSecret = {
    rotate: async (options: PostOptions = {}): Promise<DataOf<'rotateWebhookSecret'>> => unwrap(await this.api.POST('/webhooks/secret/rotate', this.via(options))),
  };

  /** The merchant's webhook endpoints: create, list, get, update, delete, rotateSecret (webhook-endpoints.ts). */
  readonly webhookEndpoints = webhookEndpointsOf(() => this.api, unwrap, (options) => this.via(options));

  readonly sandbox = {
    /** The payer pays a PIX or boleto payment. */
    pay: async (paymentToken: string, options: PostOptions = {}): Promise<DataOf<'sandboxPayPayment'>> =>
      unwrap(await this.api.POST('/sandbox/payments/{payment_token}/pay', { params: { path: { payment_token: paymentToken } }, ...this.via(options) })),
    advanceClock: async (seconds: number, options: PostOptions = {}): Promise<DataOf<'advanceClock'>> =>
      unwrap(await this.api.POST('/sandbox/clock/advance', { body: { seconds }, ...this.via(options) })),
    clock: async (options: RequestOptions = {}): Promise<DataOf<'getClock'>> => unwrap(await this.api.GET('/sandbox/clock', this.via(options))),
    /** The acquirer disputes a paid payment now (all that can be disputed when `amount` is absent). */
    dispute: async (paymentToken: string, body: BodyOf<'sandboxDisputePayment'> = {}, options: PostOptions = {}): Promise<DataOf<'sandboxDisputePayment'>> =>
      unwrap(await this.api.POST('/sandbox/payments/{payment_token}/dispute', { params: { path: { payment_token: paymentToken } }, body, ...this.via(options) })),
    /** The acquirer rules on a dispute under review. */
    closeDispute: async (disputeId: string, outcome: 'WON' | 'LOST', options: PostOptions = {}): Promise<DataOf<'sandboxCloseDispute'>> =>
      unwrap(await this.api.POST('/sandbox/disputes/{dispute_id}/close', { params: { path: { dispute_id: disputeId } }, body: { outcome }, ...this.via(options) })),
  };

  private async *eventPages(query: QueryOf<'listEvents'>, options: RequestOptions): AsyncGenerator<Schemas['Event']> {
    let cursor: string | undefined;
    do {
      const page = await this.events.list({ ...query, ...(cursor ? { cursor } : {}) }, options);
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
        const headers: Record<string, string> = { accept: 'text/event-stream', 'x-auth-token': await this.transport.accessToken(options.signal) };
        if (lastId) headers['last-event-id'] = lastId;
        const response = await this.transport.fetchImpl(new Request(`${this.baseUrl}/webhooks/events/stream`, { headers, ...(options.signal ? { signal: options.signal } : {}) }));
        if (!response.ok || !response.body) {
          const error = ColibriError.from(response.status, await response.json().catch(() => undefined), response.headers);
          if (response.status === 401) this.transport.forgetToken();
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
        this.transport.forgetToken();
      } catch (error) {
        if (options.signal?.aborted) return;
        if (error instanceof ColibriError && !(error as ColibriError & { retry?: boolean }).retry) throw error;
        failures++;
        if (failures > 10) throw error;
        // The wait ends at once when the signal aborts: a listener told to stop does not sit out its backoff.
        await sleep(this.transport.backoffMs(Math.min(failures, 5)), options.signal).catch(() => undefined);
      }
    }
  }

  /** Every payment of a query, the pages pinned by `created_before` to just after the first page's newest. */
  private async *paymentsPinned(query: Partial<QueryOf<'listPayments'>>, options: RequestOptions): AsyncGenerator<Schemas['PaymentSummary']> {
    const first = await this.payments.list({ ...query, page: 0 }, options);
    yield* first.content;
    const newest = first.content[0];
    if (first.last || !newest) return;
    const pinned = query.created_before ?? new Date(Date.parse(`${newest.created_at.replace(' ', 'T')}Z`) + 1).toISOString();
    yield* numberedPages((page) => this.payments.list({ ...query, created_before: pinned, page: page + 1 }, options), (p) => ({ items: p.content, last: p.last }));
  }
}

/** The data of a successful openapi-fetch answer, or the error as a ColibriError of its family. */
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
