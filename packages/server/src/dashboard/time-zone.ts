import type { Db } from '../db/database';
import { ApiError } from '../http/errors';

/** The zone of a merchant that has not picked one: Colibri's merchants are Brazilian first. */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/**
 * Whether the runtime knows an IANA zone name (or UTC), so the page's Intl can use it too.
 * @example isTimeZone('America/Bogota') // true
 */
export function isTimeZone(name: string): boolean {
  if (name === 'UTC') return true;
  try {
    return Intl.supportedValuesOf('timeZone').includes(name) || new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone === name;
  } catch {
    return false;
  }
}

/**
 * The merchant's time zone, in which the dashboard shows every time (docs/dashboard.md, "Times and clocks").
 * @example const zone = await merchantTimeZone(db, merchantId); // 'America/Sao_Paulo'
 */
export async function merchantTimeZone(db: Db, merchantId: string): Promise<string> {
  const row = await db.selectFrom('merchants').select('time_zone').where('id', '=', merchantId).executeTakeFirstOrThrow();
  return row.time_zone ?? DEFAULT_TIME_ZONE;
}

/**
 * Keeps the merchant's time zone, for every user and browser of that merchant.
 * @example await setMerchantTimeZone(db, merchantId, 'America/Mexico_City');
 */
export async function setMerchantTimeZone(db: Db, merchantId: string, zone: string): Promise<string> {
  if (!isTimeZone(zone)) throw new ApiError('DASHBOARD_TIME_ZONE_INVALID');
  await db.updateTable('merchants').set({ time_zone: zone }).where('id', '=', merchantId).execute();
  return zone;
}
