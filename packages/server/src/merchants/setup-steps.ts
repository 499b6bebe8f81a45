import type { Db } from '../db/database';
import { DEFAULT_FEE_PLAN, saveFeePlan } from '../fees/fee-plan';
import { createDefaultReports } from '../reports/default-reports';

/**
 * What every new merchant gets, in the transaction that creates it. Domains add their step here
 * (default fee plan, default saved reports), so the whole of a merchant's starting state is listed in
 * one place.
 */
export type MerchantSetupStep = (trx: Db, merchantId: string) => Promise<void>;

export const MERCHANT_SETUP_STEPS: readonly MerchantSetupStep[] = [
  (trx, merchantId) => saveFeePlan(trx, merchantId, DEFAULT_FEE_PLAN),
  (trx, merchantId) => createDefaultReports(trx, merchantId),
];
