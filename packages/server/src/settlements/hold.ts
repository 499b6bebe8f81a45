import { merchantNow } from '../clock/merchant-clock';
import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { changeSettlementStatus, lockSettlement, type SettlementRow } from './settlement-record';

/**
 * Why a PENDING settlement of a held merchant fails without being sent, in the processor outcome vocabulary
 * (processor/outcome-codes.ts, CANCELED). The operator's own reason stays the operator's.
 */
export const HELD_FAILURE = { failure_code: 'CANCELED', failure_description: "The operator held this merchant's settlements before this one was sent; its money is available again." } as const;

/** A merchant's hold as the operator sees it, with the settlements the hold stopped. */
export interface HoldResult {
  merchant_id: string;
  held: boolean;
  held_reason: string | null;
  held_at: Date | null;
  paused: boolean;
  failed_settlement_ids: string[];
}

/**
 * `POST /admin/merchants/<id>/settlements/hold`: no settlement of the merchant is made or sent until the
 * operator releases it. In one transaction, under the settings row's lock (which the sweep and the payment
 * job take before a settlement's): the hold is recorded, and every settlement still PENDING (not yet handed to
 * the bank) fails, so its money is available again, where the hold keeps it. A settlement already IN_TRANSIT
 * is the bank's and ends as the bank says.
 * @example await holdSettlements(db, merchantId, 'KYC review')
 */
export async function holdSettlements(db: Db, merchantId: string, reason: string): Promise<HoldResult> {
  return db.transaction().execute(async (trx) => {
    const merchant = await trx.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst();
    if (!merchant) throw new ApiError('NOT_FOUND', 'merchantId: merchant not found.');
    const now = await merchantNow(trx, merchantId);
    const settings = await trx
      .insertInto('settlement_settings')
      .values({ merchant_id: merchantId, held: true, held_reason: reason, held_at: now, updated_at: now })
      .onConflict((oc) => oc.column('merchant_id').doUpdateSet({ held: true, held_reason: reason, held_at: now, updated_at: now }))
      .returningAll()
      .executeTakeFirstOrThrow();
    const pending = await trx.selectFrom('settlements').select('settlement_id').where('merchant_id', '=', merchantId).where('status', '=', 'PENDING').orderBy('created_at').execute();
    const failed: SettlementRow[] = [];
    for (const { settlement_id } of pending) {
      const settlement = await lockSettlement(trx, merchantId, settlement_id);
      if (settlement?.status === 'PENDING') failed.push(await changeSettlementStatus(trx, settlement, 'FAILED', now, HELD_FAILURE));
    }
    return { merchant_id: merchantId, held: true, held_reason: settings.held_reason, held_at: settings.held_at, paused: settings.paused, failed_settlement_ids: failed.map((s) => s.settlement_id) };
  });
}

/**
 * `POST /admin/merchants/<id>/settlements/release`: the merchant's settlements resume with the next sweep of a
 * business day (one not made yet today is made then).
 * @example await releaseSettlements(db, merchantId)
 */
export async function releaseSettlements(db: Db, merchantId: string): Promise<HoldResult> {
  return db.transaction().execute(async (trx) => {
    const merchant = await trx.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst();
    if (!merchant) throw new ApiError('NOT_FOUND', 'merchantId: merchant not found.');
    const now = await merchantNow(trx, merchantId);
    const settings = await trx
      .insertInto('settlement_settings')
      .values({ merchant_id: merchantId, updated_at: now })
      .onConflict((oc) => oc.column('merchant_id').doUpdateSet({ held: false, held_reason: null, held_at: null, updated_at: now }))
      .returningAll()
      .executeTakeFirstOrThrow();
    return { merchant_id: merchantId, held: false, held_reason: null, held_at: null, paused: settings.paused, failed_settlement_ids: [] };
  });
}
