/**
 * The Colibri SDK: a typed client generated from the service's OpenAPI document, with tokens,
 * idempotent retries, time limits, pagination, typed errors and callback verification on top (README.md).
 */
export { Colibri, unwrap, type ColibriOptions, type RequestOptions, type PostOptions, type Schemas, type BodyOf, type DataOf, type QueryOf } from './client.js';
export {
  ColibriError,
  ApiError,
  ValidationError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  ConflictError,
  UnprocessableError,
  IdempotencyError,
  RateLimitError,
  ServiceUnavailableError,
  ColibriConnectionError,
  ColibriTimeoutError,
  ColibriAbortError,
  ERROR_CODES,
  type ErrorCode,
  type ErrorCodeName,
  type ErrorItem,
  type FieldError,
} from './errors.js';
export { DEFAULT_TIMEOUT_MS } from './transport.js';
export { toDecimalString, toAmountNumber, type Amount, type WithAmounts } from './amounts.js';
export { verifyCallback, signCallback, CallbackVerificationError, type CallbackEvent, type CallbackType } from './webhooks.js';
export type { paths, components, operations } from './generated/openapi.js';
