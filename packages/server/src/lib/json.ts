import { isoTime } from './time-format';

/**
 * JSON text for a statement's `json` or `jsonb` parameter: bigints as decimal strings (PostgreSQL reads them
 * back exactly into `bigint` columns), dates as ISO 8601.
 *
 * BigInt has a `toJSON`, installed once when this module loads, that writes a decimal string only during
 * the one synchronous `JSON.stringify` call of jsonParameter. Anywhere else it hands the bigint back
 * unchanged, which is what JSON.stringify sees without a `toJSON`: a replacer still gets the bigint, and
 * with none JSON.stringify still throws its TypeError, so a bigint never becomes JSON by accident.
 *
 * Why not the simpler ways. A replacer function would do the same, but JSON.stringify calls a replacer
 * for every key and value, and the statements of the payment path send hundreds of them per turn
 * (about 40 % slower, measured on payment rows). Adding `toJSON` for the length of each call and
 * deleting it after (this module's first form) changes BigInt.prototype's shape twice per call, and
 * V8 throws away the optimised code of every function that relied on that shape: under load the
 * service then spent a fifth of its CPU re-optimising the same functions (perf and --trace-deopt,
 * "code dependencies", 2026-11-28; docs/performance.md). A flag flipped around the call changes no shape.
 * @example sql`select * from json_to_recordset(${jsonParameter(rows)}::json) as r(amount_minor bigint)`
 */
export function jsonParameter(value: unknown): string {
  // A caller's own toJSON calling back in is already inside the call.
  if (convertingBigints) return JSON.stringify(value);
  convertingBigints = true;
  try {
    return JSON.stringify(value);
  } finally {
    convertingBigints = false;
  }
}

/**
 * jsonParameter for the rows of a `json_to_recordset` or `json_populate_recordset`, each row without its
 * null properties: the record functions read a missing key as SQL null, exactly as they read a JSON null,
 * so a null written out is only text to parse. A payment row carries about fifteen (no FX, no error yet, …); left out,
 * PostgreSQL's work to read a batch of payment rows fell by about a third (16–18 against 12 µs per row,
 * and 20–24 with the parameter as `jsonb`, measured 2026-11-28; docs/performance.md). A row's dates are
 * written as JSON.stringify writes them, each instant's text made once (isoTime, lib/time-format.ts).
 * Nested values are sent as they are: a null inside a JSON column is data.
 * @example sql`select * from json_to_recordset(${jsonRows(rows)}::json) as r(id uuid, error_code text)`
 */
export function jsonRows(rows: readonly object[]): string {
  return jsonParameter(rows.map(withoutNulls));
}

function withoutNulls(row: object): object {
  const kept: Record<string, unknown> = {};
  for (const key in row) {
    const value = (row as Record<string, unknown>)[key];
    if (value !== null) kept[key] = value instanceof Date ? dateJson(value) : value;
  }
  return kept;
}

/** A date as JSON.stringify writes it (isoTime, lib/time-format.ts); an invalid one stays a Date, which JSON writes as null. */
function dateJson(date: Date): string | Date {
  return Number.isNaN(date.getTime()) ? date : isoTime(date);
}

/** True only while jsonParameter's JSON.stringify runs. */
let convertingBigints = false;

function bigintToJson(this: bigint): string | bigint {
  return convertingBigints ? this.toString() : this;
}

// A program that gave BigInt a toJSON of its own keeps it (jsonParameter then writes what it writes).
if ((BigInt.prototype as { toJSON?: unknown }).toJSON === undefined) {
  Object.defineProperty(BigInt.prototype, 'toJSON', { value: bigintToJson, writable: false, enumerable: false, configurable: true });
}
