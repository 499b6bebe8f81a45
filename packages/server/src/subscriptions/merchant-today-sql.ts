import { sql } from 'kysely';

/**
 * The merchant clock's calendar day (UTC) in SQL, for the workers' candidate queries; the `merchants`
 * table must be in the query. Each candidate is re-checked against merchantNow inside its own locked
 * transaction, so a small skew between the database's clock and the service's only delays work by one
 * sweep, and never does it early twice.
 */
export const merchantTodaySql = sql<string>`to_char((now() + merchants.clock_offset_ms * interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD')`;
