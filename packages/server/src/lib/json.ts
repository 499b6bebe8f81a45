/**
 * JSON text for a statement's `jsonb` parameter: bigints as decimal strings (PostgreSQL reads them
 * back exactly into `bigint` columns), dates as ISO 8601.
 * @example sql`select * from jsonb_to_recordset(${jsonParameter(rows)}::jsonb) as r(amount_minor bigint)`
 */
export function jsonParameter(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}
