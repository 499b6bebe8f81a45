import { AMOUNT_FIELDS } from './generated/amount-fields.js';

/** An amount as the caller gives it: a decimal string (`"19.99"`) or a number (`19.99`). */
export type Amount = string | number;

/** The request body of an operation with its one-type amount fields widened to `Amount`. */
export type WithAmounts<T> = T extends readonly (infer U)[]
  ? WithAmounts<U>[]
  : T extends object
    ? { [K in keyof T]: K extends 'amount' | `${string}_amount` ? (NonNullable<T[K]> extends string | number ? Amount | Exclude<T[K], string | number> : WithAmounts<T[K]>) : WithAmounts<T[K]> }
    : T;

const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A decimal string from a number, through its shortest decimal form (19.99 → "19.99"), never through
 * float arithmetic, so the service reads exactly the amount written.
 */
export function toDecimalString(value: Amount): string {
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value)) throw new TypeError(`amount: ${value} is not a finite number`);
  const text = String(value);
  // Exponent notation (1e21, 1e-7) is no amount the service accepts; show it as the service will see it.
  return /e/i.test(text) ? value.toFixed(20).replace(/\.?0+$/, '') : text;
}

/** A JSON number from a decimal string; the service reads numbers through their shortest decimal form too. */
export function toAmountNumber(value: Amount): number | string {
  if (typeof value === 'number') return value;
  // Something that is not a decimal is sent as given, for the service to name the rule it breaks.
  return DECIMAL.test(value.trim()) ? Number(value.trim()) : value;
}

/** Converts the amount fields of a body to the JSON type the operation's schema fixes. */
export function normaliseAmounts<T>(operationId: string, body: T): T {
  const fields = AMOUNT_FIELDS[operationId];
  if (!fields || body === null || typeof body !== 'object') return body;
  const copy = structuredClone(body) as unknown;
  for (const { path, type } of fields) convertAt(copy, path, type);
  return copy as T;
}

function convertAt(node: unknown, path: readonly string[], type: 'string' | 'number'): void {
  if (node === null || typeof node !== 'object') return;
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (head === '*') {
    if (Array.isArray(node)) for (const item of node) convertAt(item, rest, type);
    return;
  }
  const record = node as Record<string, unknown>;
  if (rest.length > 0) return convertAt(record[head], rest, type);
  const value = record[head];
  if (typeof value !== 'string' && typeof value !== 'number') return;
  record[head] = type === 'string' ? toDecimalString(value) : toAmountNumber(value);
}
