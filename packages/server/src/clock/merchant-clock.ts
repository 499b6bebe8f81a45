import type { Db } from '../db/database';

/**
 * Each merchant has a clock: the real time plus an offset that only the sandbox can move
 * (`POST /sandbox/clock/advance`). Every time rule of a merchant (refund windows, pre-authorisation
 * TTL, expiries, due dates) reads this clock, and domain timestamps are written in it, so a test can
 * live through five days in a second and see consistent history.
 */
export function clockAt(offsetMs: bigint, realNow = Date.now()): Date {
  return new Date(realNow + Number(offsetMs));
}

/** @example const now = await merchantNow(db, merchantId); */
export async function merchantNow(db: Db, merchantId: string): Promise<Date> {
  const row = await db.selectFrom('merchants').select('clock_offset_ms').where('id', '=', merchantId).executeTakeFirstOrThrow();
  return clockAt(row.clock_offset_ms);
}

/** Moves one merchant's clock forward (never back: time rules assume it only advances). @example await advanceMerchantClock(db, id, 86_400) */
export async function advanceMerchantClock(db: Db, merchantId: string, seconds: number): Promise<Date> {
  const row = await db
    .updateTable('merchants')
    .set((eb) => ({ clock_offset_ms: eb('clock_offset_ms', '+', BigInt(seconds) * 1000n) }))
    .where('id', '=', merchantId)
    .returning('clock_offset_ms')
    .executeTakeFirstOrThrow();
  return clockAt(row.clock_offset_ms);
}
