import { request, type Dispatcher } from 'undici';
import { ProcessorTimeoutError, ProcessorUnavailableError } from '../../processor/processor';

/** Adyen refused a request with a 4xx: the request itself is wrong or unauthorised; sending it again changes nothing. */
export class AdyenRequestRefused extends Error {
  constructor(
    readonly statusCode: number,
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
    this.name = 'AdyenRequestRefused';
  }
}

/** Connection failures that happen before a byte of the request is sent: nothing reached Adyen. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCodeOf(error: unknown): string | undefined {
  const own = (error as { code?: unknown }).code;
  if (typeof own === 'string' && own !== 'UND_ERR_SOCKET') return own;
  const cause = (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof cause === 'string' ? cause : typeof own === 'string' ? own : undefined;
}

/**
 * The HTTP client the official Adyen library sends through (its `ClientInterface`). The library builds
 * each request (endpoint, JSON, API key, Idempotency-Key); this client sends it with a deadline and
 * sorts failures the way the processor contract needs:
 * - nothing sent (connection refused, unknown host, connect timeout) or 429: ProcessorUnavailableError;
 * - no answer in time, a dropped connection, or a 5xx: ProcessorTimeoutError, since Adyen may have
 *   acted; the retry asks `status` first and resends under the same Idempotency-Key;
 * - another 4xx: AdyenRequestRefused, which the connector reports as an ERROR result.
 * It exists, rather than the library's own https client, to make that split and to allow endpoint
 * overrides (a proxy, or the test fake).
 */
export class AdyenTransport {
  constructor(
    private readonly options: { timeoutMs: number; checkoutUrl: string | undefined; disputesUrl?: string | undefined; dispatcher?: Dispatcher | undefined },
  ) {}

  async request(endpoint: string, json: string | Buffer, config: { apiKey?: string | undefined }, _isApiKeyRequired: boolean, requestOptions: { method?: string | undefined; headers?: Record<string, unknown>; idempotencyKey?: string | undefined } = {}): Promise<string> {
    const url = this.rewrite(endpoint);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (config.apiKey) headers['x-api-key'] = config.apiKey;
    if (requestOptions.idempotencyKey) headers['idempotency-key'] = requestOptions.idempotencyKey;
    const operation = new URL(url).pathname;
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: (requestOptions.method ?? 'POST') as Dispatcher.HttpMethod,
        headers,
        body: json,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        signal: AbortSignal.timeout(this.options.timeoutMs),
        ...(this.options.dispatcher ? { dispatcher: this.options.dispatcher } : {}),
      });
    } catch (error) {
      const code = errorCodeOf(error);
      if (code && NOT_SENT.has(code)) throw new ProcessorUnavailableError(`adyen ${operation}`);
      throw new ProcessorTimeoutError(`adyen ${operation}`);
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch {
      throw new ProcessorTimeoutError(`adyen ${operation}`);
    }
    if (response.statusCode === 429) throw new ProcessorUnavailableError(`adyen ${operation} (rate limited)`);
    if (response.statusCode >= 500) throw new ProcessorTimeoutError(`adyen ${operation} (HTTP ${response.statusCode})`);
    if (response.statusCode >= 400) {
      let parsed: { errorCode?: string; message?: string } = {};
      try {
        parsed = JSON.parse(text) as typeof parsed;
      } catch {
        // A non-JSON error body still refuses the request; its status says enough.
      }
      throw new AdyenRequestRefused(response.statusCode, parsed.errorCode ?? String(response.statusCode), parsed.message ?? `HTTP ${response.statusCode}`);
    }
    return text;
  }

  /**
   * Sends to the configured base URL of the call's API instead of Adyen's, keeping the versioned path:
   * the Disputes API (Adyen's `…/DisputeService/v30/…`) to `disputesUrl`, the Checkout API to
   * `checkoutUrl`. Each override moves its own API only: a Checkout proxy never receives dispute calls.
   */
  private rewrite(endpoint: string): string {
    const url = new URL(endpoint);
    const base = url.pathname.includes('/DisputeService/') ? this.options.disputesUrl : this.options.checkoutUrl;
    if (!base) return endpoint;
    const versioned = url.pathname.search(/\/v\d+\//);
    return `${base.replace(/\/$/, '')}${versioned >= 0 ? url.pathname.slice(versioned) : url.pathname}${url.search}`;
  }
}
