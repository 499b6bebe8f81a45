/**
 * Colibri's identifiers (payment tokens, card, person, checkout, event and payout ids) are UUIDs in
 * `uuid` columns. PostgreSQL fails a comparison with a malformed one instead of finding nothing, so every
 * id that comes from outside is checked here first and a malformed one is simply "not found".
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a string has the 8-4-4-4-12 hexadecimal form of a UUID (any version, either case).
 * @example isUuid('7c9e6679-7425-40de-944b-e07fc1f90ae7') // true
 * @example isUuid('not-a-uuid')                           // false
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
