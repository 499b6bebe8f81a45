import { ERROR_CODES, type ErrorCode } from './generated/error-codes.js';

export { ERROR_CODES, type ErrorCode, type ErrorCodeName } from './generated/error-codes.js';

/** One failing rule of an error answer: a catalogue code (docs/errors.md) and what it says. */
export interface ErrorItem {
  code: ErrorCode;
  description: string;
}

/** A failing rule that names its field: `payment.amount`, `payoutTransactions[2].amount`, `tax_id`. */
export interface FieldError extends ErrorItem {
  /** The field in the spec's notation, as the description starts with it. */
  field: string;
}

/**
 * An error answer of the service (`ApiError` is the same class): its HTTP status, the spec's
 * `NN.NN.NNNN` codes and the whole body. Every SDK call that the service answers with 4xx or 5xx
 * (after retries, for those that are retried) throws one, as the subclass of its family when it has
 * one: `ValidationError` (400), `AuthenticationError` (401), `PermissionError` (403), `NotFoundError`
 * (404), `ConflictError` (409), `UnprocessableError` (422), `IdempotencyError` (the 00.06 codes, at
 * 400, 409 or 422), `RateLimitError` (429) and `ServiceUnavailableError` (502, 503, 504).
 * @example
 * try { await colibri.refunds.create({ payment_token, amount: 5 }); }
 * catch (e) { if (e instanceof ColibriError && e.hasCode(ERROR_CODES.REFUND_AMOUNT_EXCEEDS)) … }
 */
export class ColibriError extends Error {
  override readonly name: string = 'ColibriError';

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** Each failing rule; empty when the answer names none (401, or the report endpoints' body). */
    readonly errors: readonly ErrorItem[],
    /** The whole error body as the service sent it. */
    readonly body: unknown,
    /** The service's request id, to quote when asking for help. */
    readonly requestId: string | undefined,
    /** Seconds to wait before trying again, from Retry-After (429, 503). */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(describe(status, errors, body));
  }

  /** The catalogue codes of this answer. */
  get codes(): ErrorCode[] {
    return this.errors.map((e) => e.code);
  }

  /** Whether one of the failing rules has this code. */
  hasCode(code: ErrorCode): boolean {
    return this.errors.some((e) => e.code === code);
  }

  /**
   * Builds the error of an answer from its status, body and headers, as the class of its family.
   * @example const error = ColibriError.from(response.status, await response.json(), response.headers);
   */
  static from(status: number, body: unknown, headers: Headers): ColibriError {
    const items = isRecord(body) && Array.isArray(body.errors) ? body.errors.filter(isErrorItem) : [];
    const retryAfter = headers.get('retry-after');
    const Family = familyOf(status, items);
    return new Family(status, items, body, headers.get('x-request-id') ?? undefined, retryAfter ? retryAfterSeconds(retryAfter) : undefined);
  }
}

/** The same class as `ColibriError`, by the name the error families share. */
export { ColibriError as ApiError };

/**
 * 400: the request breaks the API's field rules. Every failing field is in one answer; `fields` lists
 * those that name their field, for showing each next to its input.
 * @example
 * catch (e) { if (e instanceof ValidationError) for (const f of e.fields) form.showError(f.field, f.description); }
 */
export class ValidationError extends ColibriError {
  override readonly name: string = 'ValidationError';

  /** The failing rules that name a field, with the field split off. */
  get fields(): FieldError[] {
    return this.errors.flatMap((item) => {
      const field = fieldOf(item.description);
      return field === undefined ? [] : [{ ...item, field }];
    });
  }

  /** The names of the failing fields, each once, in the answer's order. */
  get fieldNames(): string[] {
    return [...new Set(this.fields.map((f) => f.field))];
  }
}

/** 401: the key and secret, or the token, were refused (the SDK has already fetched a new token once). */
export class AuthenticationError extends ColibriError {
  override readonly name: string = 'AuthenticationError';
}

/** 403: authenticated, but not allowed to do this. */
export class PermissionError extends ColibriError {
  override readonly name: string = 'PermissionError';
}

/** 404: no such resource for this merchant (another merchant's resources are not found either). */
export class NotFoundError extends ColibriError {
  override readonly name: string = 'NotFoundError';
}

/** 409: the resource's state does not allow the operation now (a dispute already answered, a second card attempt). */
export class ConflictError extends ColibriError {
  override readonly name: string = 'ConflictError';
}

/** 422: a business rule refused the operation (not capturable, amount above what can be refunded…). */
export class UnprocessableError extends ColibriError {
  override readonly name: string = 'UnprocessableError';
}

/**
 * The Idempotency-Key was refused: used before with another body (422 `00.06.0001`), its first request
 * still running (409 `00.06.0002`, retry shortly with the same key), or not a valid key (400 `00.06.0003`).
 */
export class IdempotencyError extends ColibriError {
  override readonly name: string = 'IdempotencyError';
}

/** 429: too many requests; `retryAfterSeconds` says when to try again (the SDK already waited and retried). */
export class RateLimitError extends ColibriError {
  override readonly name: string = 'RateLimitError';
}

/**
 * 502, 503 or 504: the service, its database or a processor behind it could not answer now, after the
 * SDK's retries. Retrying later with the same `idempotencyKey` is safe.
 */
export class ServiceUnavailableError extends ColibriError {
  override readonly name: string = 'ServiceUnavailableError';
}

type ErrorClass = new (...args: ConstructorParameters<typeof ColibriError>) => ColibriError;

const BY_STATUS: Record<number, ErrorClass> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableError,
  429: RateLimitError,
  502: ServiceUnavailableError,
  503: ServiceUnavailableError,
  504: ServiceUnavailableError,
};

const IDEMPOTENCY_CODES = new Set<string>([ERROR_CODES.IDEMPOTENCY_KEY_REUSED, ERROR_CODES.IDEMPOTENCY_KEY_IN_PROGRESS, ERROR_CODES.IDEMPOTENCY_KEY_INVALID]);

function familyOf(status: number, items: readonly ErrorItem[]): ErrorClass {
  if (items.some((item) => IDEMPOTENCY_CODES.has(item.code))) return IdempotencyError;
  return BY_STATUS[status] ?? ColibriError;
}

/**
 * No answer came: the network failed after the SDK's retries, or (ColibriTimeoutError) the call ran out
 * of time. Whether a POST took effect is unknown; repeating it with the same `idempotencyKey` is safe,
 * since the service then replays the first answer instead of acting twice.
 */
export class ColibriConnectionError extends Error {
  override readonly name: string = 'ColibriConnectionError';
  /** The Idempotency-Key the call was sent with (POST), for repeating it safely. */
  readonly idempotencyKey: string | undefined;
  constructor(message: string, options: { cause?: unknown; idempotencyKey?: string | undefined } = {}) {
    super(message, { cause: options.cause });
    this.idempotencyKey = options.idempotencyKey;
  }
}

/** The call, retries and backoff included, took longer than its `timeoutMs`. */
export class ColibriTimeoutError extends ColibriConnectionError {
  override readonly name: string = 'ColibriTimeoutError';
  /** The time the call had, in milliseconds. */
  readonly timeoutMs: number;
  constructor(message: string, options: { cause?: unknown; idempotencyKey?: string | undefined; timeoutMs: number }) {
    super(message, options);
    this.timeoutMs = options.timeoutMs;
  }
}

/**
 * The caller's `signal` aborted the call. Its name is `AbortError`, as fetch's own, so code that checks
 * `error.name === 'AbortError'` handles it; the signal's reason is its `cause`.
 */
export class ColibriAbortError extends Error {
  override readonly name: string = 'AbortError';
  /** The Idempotency-Key the call was sent with (POST): whether the service acted is unknown. */
  readonly idempotencyKey: string | undefined;
  constructor(message: string, options: { cause?: unknown; idempotencyKey?: string | undefined } = {}) {
    super(message, { cause: options.cause });
    this.idempotencyKey = options.idempotencyKey;
  }
}

const KNOWN_CODES = new Set<string>(Object.values(ERROR_CODES));

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isErrorItem(value: unknown): value is ErrorItem {
  // Codes outside this SDK's catalogue (a newer service) are kept: the type is a promise about the catalogue, not a filter.
  return isRecord(value) && typeof value.code === 'string' && typeof value.description === 'string' && (KNOWN_CODES.has(value.code) || /^\d{2}\.\d{2}\.\d{4}$/.test(value.code));
}

/** The field a description starts with (`payment.amount: must be…`), when it names one. */
function fieldOf(description: string): string | undefined {
  const colon = description.indexOf(': ');
  if (colon <= 0) return undefined;
  const field = description.slice(0, colon);
  return /^[A-Za-z_][\w-]*(\[\d+\])*(\.[A-Za-z_][\w-]*(\[\d+\])*)*$/.test(field) ? field : undefined;
}

function describe(status: number, errors: readonly ErrorItem[], body: unknown): string {
  if (errors.length > 0) return `Colibri answered ${status}: ${errors.map((e) => `${e.code} ${e.description}`).join('; ')}`;
  const message = isRecord(body) && typeof body.message === 'string' ? body.message : undefined;
  return `Colibri answered ${status}${message ? `: ${message}` : ''}`;
}

/** Retry-After in seconds, from a number of seconds or an HTTP date. */
export function retryAfterSeconds(value: string): number | undefined {
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}
