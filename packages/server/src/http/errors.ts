/**
 * The error catalogue and ApiError, for the routes, hooks and services that answer with them. Both
 * live in lib/errors.ts, below lib/state-machine.ts and lib/shared-limiter.ts, which throw them.
 */
export { ApiError, ERRORS, type ErrorDefinition, type ErrorItem, type ErrorKey } from '../lib/errors';
