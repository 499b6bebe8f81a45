/**
 * JSON text for a statement's `jsonb` parameter: bigints as decimal strings (PostgreSQL reads them
 * back exactly into `bigint` columns), dates as ISO 8601.
 *
 * BigInt gets a `toJSON` for the length of the one synchronous `JSON.stringify` call, and loses it
 * after: a replacer function would do the same, but JSON.stringify calls a replacer for every key and
 * value, and the statements of the payment path send hundreds of them per turn (about 40 % slower,
 * measured on payment rows). Nothing else can run between the two, and outside this call a bigint
 * still refuses to become JSON by accident.
 * @example sql`select * from jsonb_to_recordset(${jsonParameter(rows)}::jsonb) as r(amount_minor bigint)`
 */
export function jsonParameter(value: unknown): string {
  const bigint = BigInt.prototype as { toJSON?: () => string };
  // Already there (a caller's own toJSON calling back in, or a program that defines it for good): leave it.
  if (bigint.toJSON !== undefined) return JSON.stringify(value);
  bigint.toJSON = decimalText;
  try {
    return JSON.stringify(value);
  } finally {
    delete bigint.toJSON;
  }
}

function decimalText(this: bigint): string {
  return this.toString();
}
