import { randomUUID } from 'node:crypto';
import { ColibriAbortError, ColibriConnectionError, ColibriError, ColibriTimeoutError, retryAfterSeconds } from './errors.js';

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
  /**
   * How long a call may take, retries and backoff included, before it throws `ColibriTimeoutError`
   * (default 60000; 0 for no limit). A call's own `timeoutMs` replaces it.
   */
  timeoutMs?: number;
  /** A fetch to use instead of the global one. */
  fetch?: (input: Request) => Promise<Response>;
}

/** What every call takes as its last argument. */
export interface RequestOptions {
  /** This call's time limit in milliseconds, retries and backoff included (default: the client's `timeoutMs`). */
  timeoutMs?: number;
  /** Aborts the call: it then throws `ColibriAbortError` (name `AbortError`). */
  signal?: AbortSignal;
}

/** What every POST takes as its last argument. */
export interface PostOptions extends RequestOptions {
  /**
   * The Idempotency-Key to send (1 to 255 visible ASCII characters). Without it the SDK makes one per
   * call, kept across its own retries; give your own, stored with your order before the call, so that
   * the same call repeated after a crash of your process is answered with the first answer instead of
   * acting twice.
   */
  idempotencyKey?: string;
}

/** How a call is sent; `stream` leaves the answer's body unread (report exports). */
export interface CallOptions extends PostOptions {
  stream?: boolean;
}

/** The default of `timeoutMs`: a minute, well above the service's own slowest answers. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** A token is renewed when it has less than this left (tokens live 5 minutes). */
const RENEW_BEFORE_MS = 30_000;
const MAX_BACKOFF_MS = 10_000;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * The policy every call goes through (README.md): tokens, Idempotency-Key, retries, time limit and abort.
 * The resource methods and `colibri.api` share one Transport, so they share its token.
 */
export class Transport {
  readonly baseUrl: string;
  readonly fetchImpl: (input: Request) => Promise<Response>;
  private token: string | undefined;
  private tokenExpiresAtMs = 0;
  private pendingToken: Promise<string> | undefined;

  constructor(readonly options: ColibriOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? ((input) => fetch(input));
    if (options.token) this.useToken(options.token);
  }

  /** A valid access token: the current one, or a new one from the key and secret; `signal` stops the wait. */
  async accessToken(signal?: AbortSignal): Promise<string> {
    if (this.token && (this.tokenExpiresAtMs === 0 || this.tokenExpiresAtMs - Date.now() > RENEW_BEFORE_MS)) return this.token;
    if (!this.options.apiKey || !this.options.apiSecret) {
      if (this.token) return this.token;
      throw new TypeError('Colibri: give apiKey and apiSecret, or token');
    }
    // One authentication serves every call waiting for it, so one caller's abort must not end it for the others.
    this.pendingToken ??= this.authenticate().finally(() => (this.pendingToken = undefined));
    return signal ? untilAborted(this.pendingToken, signal) : this.pendingToken;
  }

  /** Drops the token so that the next call fetches a new one (after a 401, or a stream the service ended). */
  forgetToken(): void {
    if (this.options.apiKey) this.token = undefined;
  }

  private async authenticate(): Promise<string> {
    const request = new Request(`${this.baseUrl}/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: this.options.apiKey, apiSecret: this.options.apiSecret }),
    });
    const response = await this.send(request);
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok) throw ColibriError.from(response.status, body, response.headers);
    const token = (body as { token: string }).token;
    this.useToken(token);
    return token;
  }

  private useToken(token: string): void {
    this.token = token;
    this.tokenExpiresAtMs = tokenExpiry(token);
  }

  /**
   * Sends one call: adds the token and the Idempotency-Key, retries what is safe to repeat, and bounds
   * the whole by `timeoutMs` and the caller's signal (the request's own, or `call.signal`).
   */
  async send(request: Request, call: CallOptions = {}): Promise<Response> {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
    const isAuth = url.pathname === '/auth';
    if (call.idempotencyKey !== undefined) {
      if (!IDEMPOTENCY_KEY.test(call.idempotencyKey)) throw new TypeError('Colibri: idempotencyKey must be 1 to 255 visible ASCII characters');
      headers.set('idempotency-key', call.idempotencyKey);
    } else if (!isAuth && !headers.has('idempotency-key') && request.method === 'POST') {
      headers.set('idempotency-key', randomUUID());
    }
    const limit = new CallLimit(call.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS, [request.signal, call.signal]);
    const idempotencyKey = headers.get('idempotency-key') ?? undefined;
    const what = `${request.method} ${url.pathname}`;
    try {
      limit.signal.throwIfAborted();
      return await this.attempts({ url, method: request.method, headers, body, isAuth, signal: limit.signal, stream: call.stream === true, idempotencyKey });
    } catch (error) {
      throw limit.explain(error, what, idempotencyKey);
    } finally {
      limit.clear();
    }
  }

  private async attempts(call: { url: URL; method: string; headers: Headers; body: ArrayBuffer | undefined; isAuth: boolean; signal: AbortSignal; stream: boolean; idempotencyKey: string | undefined }): Promise<Response> {
    const { url, headers, signal } = call;
    const canAuthenticate = !call.isAuth && !headers.has('x-auth-token') && (this.token !== undefined || this.options.apiKey !== undefined);
    const retryable = call.method !== 'POST' || headers.has('idempotency-key');
    const maxRetries = this.options.maxRetries ?? 3;
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      if (canAuthenticate) headers.set('x-auth-token', await this.accessToken(signal));
      let response: Response;
      try {
        response = await this.fetchImpl(new Request(url, { method: call.method, headers, body: call.body ?? null, signal }));
      } catch (error) {
        if (signal.aborted) throw error;
        if (!retryable || attempt >= maxRetries) {
          throw new ColibriConnectionError(`Colibri: no answer from ${url.origin} (${String(error)})`, { cause: error, idempotencyKey: call.idempotencyKey });
        }
        await sleep(this.backoffMs(attempt), signal);
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
        await sleep(Math.min(waitMs, 60_000), signal);
        continue;
      }
      // A JSON answer is read here, inside the time limit, so a body that stalls is a timeout too.
      const answer = call.stream || !isJson(response) ? response : await buffered(response);
      if (!call.isAuth) await this.takeRefreshToken(answer);
      return answer;
    }
  }

  backoffMs(attempt: number): number {
    const base = (this.options.retryBaseMs ?? 250) * 2 ** attempt;
    return Math.min(MAX_BACKOFF_MS, base / 2 + Math.random() * (base / 2));
  }

  /** Answers carry a new 5-minute token as `refresh_token`: the next call uses it. */
  private async takeRefreshToken(response: Response): Promise<void> {
    if (!isJson(response)) return;
    try {
      const body: unknown = await response.clone().json();
      if (body && typeof body === 'object' && 'refresh_token' in body && typeof body.refresh_token === 'string') this.useToken(body.refresh_token);
    } catch {
      // Not JSON after all: nothing to take.
    }
  }
}

/**
 * A call's time limit and the caller's signals as one signal, and the error that says which ended it.
 * The timer is cleared when the call ends, so a finished call keeps nothing alive.
 */
class CallLimit {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout> | undefined;
  private timedOut = false;
  private readonly unlisten: (() => void)[] = [];

  constructor(
    private readonly timeoutMs: number,
    signals: readonly (AbortSignal | undefined)[],
  ) {
    for (const signal of signals) {
      if (!signal) continue;
      if (signal.aborted) {
        this.controller.abort(signal.reason);
        break;
      }
      const abort = () => this.controller.abort(signal.reason);
      signal.addEventListener('abort', abort, { once: true });
      this.unlisten.push(() => signal.removeEventListener('abort', abort));
    }
    if (!this.controller.signal.aborted && timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'));
      }, timeoutMs);
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The error to throw for `error`: a timeout or an abort when the signal ended the call, else `error` itself. */
  explain(error: unknown, what: string, idempotencyKey: string | undefined): unknown {
    if (!this.controller.signal.aborted) return error;
    if (this.timedOut) return new ColibriTimeoutError(`Colibri: no answer to ${what} within ${this.timeoutMs} ms`, { cause: error, idempotencyKey, timeoutMs: this.timeoutMs });
    return new ColibriAbortError(`Colibri: ${what} was aborted`, { cause: this.controller.signal.reason, idempotencyKey });
  }

  clear(): void {
    clearTimeout(this.timer);
    for (const unlisten of this.unlisten) unlisten();
  }
}

function isJson(response: Response): boolean {
  return /[/+]json\b/.test(response.headers.get('content-type') ?? '');
}

async function buffered(response: Response): Promise<Response> {
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  if (NULL_BODY_STATUSES.has(response.status)) return new Response(null, init);
  return new Response(await response.arrayBuffer(), init);
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

/** Waits `ms`, or until `signal` aborts (then rejects with its reason and clears the timer). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const done = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', done);
      resolve();
    }, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts (the promise itself goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener('abort', abort), resolve(value)),
      (error: unknown) => (signal.removeEventListener('abort', abort), reject(error as Error)),
    );
  });
}
