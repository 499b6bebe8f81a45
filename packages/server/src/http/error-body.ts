import { STATUS_CODES } from 'node:http';
import { formatErrorTimestamp } from '../lib/time-format';
import type { ErrorItem } from './errors';

export interface StandardErrorBody {
  timestamp: string;
  status: number;
  error: string;
  message?: string;
  path: string;
  errors?: ErrorItem[];
  refresh_token?: string;
}

/**
 * Builds the spec's standard error body. `401` bodies carry only timestamp, status, error, message
 * and path, exactly as the spec shows them.
 * @example standardErrorBody({ status: 404, message: 'Not Found', path: '/x', items: [...] })
 */
export function standardErrorBody(input: {
  status: number;
  message: string;
  path: string;
  items?: readonly ErrorItem[];
  refreshToken?: string | undefined;
  now?: Date;
}): StandardErrorBody {
  const body: StandardErrorBody = {
    timestamp: formatErrorTimestamp(input.now ?? new Date()),
    status: input.status,
    error: STATUS_CODES[input.status] ?? 'Error',
    message: input.message,
    path: input.path,
  };
  if (input.status === 401) return body;
  if (input.items && input.items.length > 0) body.errors = [...input.items];
  if (input.refreshToken !== undefined) body.refresh_token = input.refreshToken;
  return body;
}

/** The report endpoints' 401 body (spec, Errors). */
export const REPORTS_UNAUTHORIZED_BODY = Object.freeze({ message: 'Invalid or expired token', code: 0, details: {} });
