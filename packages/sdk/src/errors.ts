import { ERROR_CODES, type ErrorCode } from './generated/error-codes.js';

export { ERROR_CODES, type ErrorCode, type ErrorCodeName } from './generated/error-codes.js';

/** One failing rule of an error answer: a catalogue code (docs/errors.md) and what it says. */
export interface ErrorItem {
  code: ErrorCode;
  description: string;
}

/**
 * An error answer of the service, with its status and the spec's `NN.NN.NNNN` codes. Thrown by every
 * SDK call that the service answers with 4xx or 5xx (after retries, for those that are retried).
 * @example
 * try { await colibri.refunds.create({ payment_token, amount: 5 }); }
 * catch (e) { if (e instanceof ColibriError && e.hasCode(ERROR_CODES.REFUND_AMOUNT_EXCEEDS)) … }
 */
export class ColibriError extends Error {
  override readonly name = 'ColibriError';

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** Each failing rule; empty when the answer names none (401, or the report endpoints' body). */
    readonly errors: readonly ErrorItem[],
    /** The whole error body as the service sent it. */
    readonly body: unknown,
    /** The service's request id, to quote when asking for help. */
    readonly requestId: string | undefined,
    /** Seconds to wait before trying again, from Retry-After (429). */
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

  /** Builds the error from an answer's status, body and headers. */
  static from(status: number, body: unknown, headers: Headers): ColibriError {
    const items = isRecord(body) && Array.isArray(body.errors) ? body.errors.filter(isErrorItem) : [];
    const retryAfter = headers.get('retry-after');
    return new ColibriError(status, items, body, headers.get('x-request-id') ?? undefined, retryAfter ? retryAfterSeconds(retryAfter) : undefined);
  }
}

/** A network failure that outlasted the retries: no answer came. */
export class ColibriConnectionError extends Error {
  override readonly name = 'ColibriConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
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
