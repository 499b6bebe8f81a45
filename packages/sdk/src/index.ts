/**
 * The Colibri SDK: a typed client generated from the service's OpenAPI document, with tokens,
 * idempotent retries, pagination, typed errors and callback verification on top (README.md).
 */
export { Colibri, unwrap, type ColibriOptions, type Schemas, type BodyOf, type DataOf, type QueryOf } from './client.js';
export { ColibriError, ColibriConnectionError, ERROR_CODES, type ErrorCode, type ErrorCodeName, type ErrorItem } from './errors.js';
export { toDecimalString, toAmountNumber, type Amount, type WithAmounts } from './amounts.js';
export { verifyCallback, signCallback, CallbackVerificationError, type CallbackEvent, type CallbackType } from './webhooks.js';
export type { paths, components, operations } from './generated/openapi.js';
