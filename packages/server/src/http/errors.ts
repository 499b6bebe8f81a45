/**
 * The closed catalogue of Colibri's error codes. Every error a client can see is listed here once,
 * with its HTTP status and a default description; `docs/errors.md` is generated from this table
 * (`npm run docs:errors`) and a test fails when the two differ.
 *
 * Codes follow the spec's `NN.NN.NNNN` form. The first pair names the area (00 shared, 01 refunds,
 * 02 payouts, 03 checkout, 04 subscriptions, 05 reports, 06 3DS), the second the family, and the last
 * four the rule. The spec's own codes keep their numbers.
 */
export interface ErrorDefinition {
  readonly code: string;
  readonly status: number;
  readonly description: string;
}

function define<const T extends Record<string, ErrorDefinition>>(catalogue: T): T {
  return catalogue;
}

export const ERRORS = define({
  // 00.00 — the HTTP envelope
  INTERNAL: { code: '00.00.0001', status: 500, description: 'An unexpected error occurred. It has been logged; please contact support with the request id.' },
  ROUTE_NOT_FOUND: { code: '00.00.0002', status: 404, description: 'There is no endpoint at this method and path.' },
  PAYLOAD_TOO_LARGE: { code: '00.00.0003', status: 413, description: 'The request body is larger than the service accepts.' },
  UNSUPPORTED_MEDIA_TYPE: { code: '00.00.0004', status: 415, description: 'The request body has a content type this endpoint does not accept.' },
  MALFORMED_BODY: { code: '00.00.0005', status: 400, description: 'The request body could not be parsed in its declared content type.' },
  RATE_LIMITED: { code: '00.00.0006', status: 429, description: 'Too many requests; retry after the time given in the Retry-After header.' },
  SANDBOX_ONLY: { code: '00.00.0007', status: 404, description: 'This endpoint exists only in sandbox mode.' },

  // 00.01 — field validation (one entry per failing field)
  FIELD_REQUIRED: { code: '00.01.0001', status: 400, description: 'A required field is missing.' },
  FIELD_TYPE: { code: '00.01.0002', status: 400, description: 'A field has the wrong type.' },
  FIELD_FORMAT: { code: '00.01.0003', status: 400, description: 'A field does not have the required format.' },
  FIELD_TOO_LONG: { code: '00.01.0004', status: 400, description: 'A field is longer than allowed.' },
  FIELD_NOT_ALLOWED: { code: '00.01.0005', status: 400, description: 'A field has a value outside the allowed set.' },
  FIELD_OUT_OF_RANGE: { code: '00.01.0006', status: 400, description: 'A numeric field is outside the allowed range.' },
  FIELD_TOO_SHORT: { code: '00.01.0007', status: 400, description: 'A field is shorter than allowed, or empty.' },
  FIELD_INVALID: { code: '00.01.0008', status: 400, description: 'A field breaks a rule of its own; the description names it.' },
  AMOUNT_DECIMALS: { code: '00.01.0044', status: 400, description: 'amount: Value must have a maximum of two decimal places.' },

  // 00.02 — authentication and authorisation
  ACCESS_DENIED: { code: '00.02.0001', status: 401, description: 'Access Denied' },
  ADMIN_TOKEN_REQUIRED: { code: '00.02.0002', status: 401, description: 'A valid admin bearer token is required.' },

  // 00.03 — external systems
  EXTERNAL_API: { code: '00.03.0001', status: 502, description: 'There was an issue when contacting an external API, please contact support' },

  // 00.04 — payment state
  CONTRACT_INVALID: { code: '00.04.0001', status: 400, description: 'contract_id: is not a contract of this merchant.' },
  AMOUNT_BELOW_MINIMUM: { code: '00.04.0002', status: 400, description: 'payment.amount: must be at least 1.00 BRL.' },
  CURRENCY_UNSUPPORTED: { code: '00.04.0003', status: 400, description: 'The asset is not a currency Colibri accepts.' },
  AUTHENTICATION_REQUIRED: { code: '00.04.0004', status: 400, description: 'authentication: is required for DEBITCARD payments.' },
  CARD_NOT_OF_PERSON: { code: '00.04.0005', status: 400, description: 'public_card_id: the card does not belong to this person.' },
  CARD_NOT_ACTIVE: { code: '00.04.0006', status: 400, description: 'public_card_id: the card is not ACTIVE.' },
  DEBIT_OPTION_UNSUPPORTED: { code: '00.04.0007', status: 400, description: 'DEBITCARD payments take no installments and no delay_capture.' },
  NOT_PRE_AUTHORIZED: { code: '00.04.0010', status: 422, description: "The payment token was not pre-authorised, so it can't be captured." },
  CAPTURE_ABOVE_AUTHORIZED: { code: '00.04.0011', status: 400, description: 'amount: must be less than or equal to the pre-authorised amount.' },
  PRE_AUTHORIZATION_EXPIRED: { code: '00.04.0012', status: 422, description: 'The pre-authorisation is older than 5 days and was canceled.' },
  NOT_CANCELABLE: { code: '00.04.0013', status: 422, description: 'Only a PRE_AUTHORIZED payment can be canceled.' },

  // 00.05 — lookups
  NOT_FOUND: { code: '00.05.0001', status: 404, description: 'The resource does not exist or belongs to another merchant.' },

  // 00.06 — idempotency
  IDEMPOTENCY_KEY_REUSED: { code: '00.06.0001', status: 422, description: 'This Idempotency-Key was used with a different request body.' },
  IDEMPOTENCY_KEY_IN_PROGRESS: { code: '00.06.0002', status: 409, description: 'A request with this Idempotency-Key is still being processed; retry shortly.' },
  IDEMPOTENCY_KEY_INVALID: { code: '00.06.0003', status: 400, description: 'Idempotency-Key must be 1 to 255 visible ASCII characters.' },

  // 00.07 — vault: persons and cards of the checkout flow (docs/cards-and-persons.md)
  TAX_ID_INVALID: { code: '00.07.0001', status: 400, description: 'tax_id: The tax id is not a valid CPF or CNPJ of the given tax_id_type.' },
  CARD_NUMBER_INVALID: { code: '00.07.0002', status: 400, description: 'number: The card number is not valid: 12 to 19 digits that pass the Luhn check, of a length its scheme issues.' },
  CARD_SCHEME_UNSUPPORTED: { code: '00.07.0003', status: 400, description: 'number: The card belongs to none of the schemes Colibri processes (VISA, MASTER, ELO, AMERICAN_EXPRESS, DINERS_CLUB, DISCOVER, JCB).' },
  CARD_EXPIRED: { code: '00.07.0004', status: 400, description: 'The card has expired: its expiry month is over on the merchant clock.' },
  CARD_EXPIRY_INVALID: { code: '00.07.0005', status: 400, description: 'exp_month or exp_year is not a valid expiry date.' },
  CARD_CVV_INVALID: { code: '00.07.0006', status: 400, description: 'cvv: must be 3 digits, or 4 digits for AMERICAN_EXPRESS.' },
  CARD_VERIFICATION_FAILED: { code: '00.07.0007', status: 400, description: 'The processor declined the card verification (for example, a wrong CVV); nothing was stored.' },

  // 01 — refunds
  REFUND_STATUS_NOT_ALLOWED: { code: '01.05.0030', status: 400, description: 'Current payment status does not allow refund' },
});

export type ErrorKey = keyof typeof ERRORS;

export interface ErrorItem {
  readonly code: string;
  readonly description: string;
}

/**
 * The one exception type routes and services throw for client-visible failures. It carries a
 * catalogue key per failing rule; the error handler turns it into the spec's standard error body.
 * @example
 * throw new ApiError('NOT_FOUND', 'payment_token: payment not found');
 * throw ApiError.fields([{ key: 'FIELD_REQUIRED', description: 'amount: is required.' }]);
 */
export class ApiError extends Error {
  readonly status: number;
  readonly items: readonly ErrorItem[];
  /** Sent as `Retry-After` (rate limits). */
  readonly retryAfterSeconds: number | undefined;

  constructor(key: ErrorKey, description?: string, options?: { message?: string; retryAfterSeconds?: number }) {
    const definition = ERRORS[key];
    super(options?.message ?? description ?? definition.description);
    this.name = 'ApiError';
    this.status = definition.status;
    this.items = [{ code: definition.code, description: description ?? definition.description }];
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  /** Several failures of one request, all answered together; the status is that of the first. */
  static fields(failures: readonly { key: ErrorKey; description: string }[]): ApiError {
    const [first, ...rest] = failures;
    if (!first) throw new Error('ApiError.fields needs at least one failure');
    const error = new ApiError(first.key, first.description, { message: 'Validation failed' });
    (error as { items: readonly ErrorItem[] }).items = [first, ...rest].map((f) => ({
      code: ERRORS[f.key].code,
      description: f.description,
    }));
    return error;
  }
}
