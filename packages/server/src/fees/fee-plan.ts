import { Type, type Static } from 'typebox';
import type { Db } from '../db/database';
import { applyPpm } from '../lib/money';
import { AvailabilityScheduleSchema } from './availability';

/**
 * Per-merchant fees. A rule charges a rate (parts per million of the amount) plus a fixed amount, to
 * the merchant (taken from what the merchant receives) or to the customer (added to what the
 * customer pays). Installment interest, when set, is a customer fee of `ppm × (installments − 1)`.
 * Every computation is integer arithmetic with one half-up rounding per fee. docs/fees.md explains
 * the model with worked examples.
 */
export const FeeRuleSchema = Type.Object({
  type: Type.String({ enum: ['SERVICE_FEE', 'TAXES_FEE'] }),
  payer: Type.String({ enum: ['MERCHANT', 'CUSTOMER'] }),
  ppm: Type.Integer({ minimum: 0, maximum: 500_000, description: 'parts per million of the amount (29900 = 2.99%)' }),
  fixed_minor: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'fixed part in minor units of the amount currency' }),
});

export const FeePlanSchema = Type.Object({
  payments: Type.Array(FeeRuleSchema, { maxItems: 10 }),
  installment_interest_ppm: Type.Integer({ minimum: 0, maximum: 100_000, description: 'customer interest per installment beyond the first' }),
  payouts: Type.Array(FeeRuleSchema, { maxItems: 10 }),
  availability: Type.Optional(AvailabilityScheduleSchema),
  dispute_fee_minor: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'charged to the merchant when a chargeback takes money back, in minor units of the payment currency (default 1500)' }),
  ),
});

export type FeeRule = Static<typeof FeeRuleSchema>;
export type FeePlan = Static<typeof FeePlanSchema>;
export type FeeType = FeeRule['type'] | 'INSTALLMENT_INTEREST';

/** What a new merchant starts with (sandbox figures; change with PUT /admin/merchants/<id>/fee-plan). */
export const DEFAULT_FEE_PLAN: FeePlan = {
  payments: [
    { type: 'SERVICE_FEE', payer: 'MERCHANT', ppm: 29_900, fixed_minor: 39 },
    { type: 'TAXES_FEE', payer: 'MERCHANT', ppm: 3_800, fixed_minor: 0 },
  ],
  installment_interest_ppm: 0,
  payouts: [{ type: 'SERVICE_FEE', payer: 'MERCHANT', ppm: 10_000, fixed_minor: 0 }],
  dispute_fee_minor: 1_500,
};

/**
 * The fee a chargeback charges the merchant, in minor units of the disputed payment's currency: the
 * plan's, or the default for a plan saved before disputes had one.
 * @example disputeFeeMinor(DEFAULT_FEE_PLAN) // 1500n
 */
export function disputeFeeMinor(plan: FeePlan): bigint {
  return BigInt(plan.dispute_fee_minor ?? DEFAULT_FEE_PLAN.dispute_fee_minor ?? 0);
}

/**
 * The fee rules a payment keeps from its merchant's plan (its `fee_rules` column, one JSON object), so
 * that a later partial capture prices its fees as its creation did.
 */
export type PaymentFeeRules = Pick<FeePlan, 'payments' | 'installment_interest_ppm' | 'availability'>;

/**
 * A payment's `fee_rules`, the one encoding every payment stores.
 * @example paymentFeeRules(plan) // { payments: [...], installment_interest_ppm: 0 }
 */
export function paymentFeeRules(plan: PaymentFeeRules): PaymentFeeRules {
  return { payments: plan.payments, installment_interest_ppm: plan.installment_interest_ppm, ...(plan.availability ? { availability: plan.availability } : {}) };
}

export interface AppliedFee {
  readonly type: FeeType;
  readonly payer: 'MERCHANT' | 'CUSTOMER';
  readonly amountMinor: bigint;
}

export interface FeeBreakdown {
  readonly fees: readonly AppliedFee[];
  readonly customerFeesMinor: bigint;
  readonly merchantFeesMinor: bigint;
}

/**
 * Applies fee rules to an amount.
 * @example computeFees(DEFAULT_FEE_PLAN.payments, 10000n) // SERVICE_FEE 338n + TAXES_FEE 38n, both MERCHANT
 */
export function computeFees(rules: readonly FeeRule[], amountMinor: bigint, options: { installments?: number; installmentInterestPpm?: number } = {}): FeeBreakdown {
  const fees: AppliedFee[] = rules.map((rule) => ({
    type: rule.type as FeeRule['type'],
    payer: rule.payer as AppliedFee['payer'],
    amountMinor: applyPpm(amountMinor, BigInt(rule.ppm)) + BigInt(rule.fixed_minor),
  }));
  const extraInstallments = Math.max(0, (options.installments ?? 1) - 1);
  if (extraInstallments > 0 && (options.installmentInterestPpm ?? 0) > 0) {
    fees.push({
      type: 'INSTALLMENT_INTEREST',
      payer: 'CUSTOMER',
      amountMinor: applyPpm(amountMinor, BigInt(options.installmentInterestPpm ?? 0) * BigInt(extraInstallments)),
    });
  }
  const sum = (payer: AppliedFee['payer']) => fees.filter((f) => f.payer === payer).reduce((t, f) => t + f.amountMinor, 0n);
  return { fees, customerFeesMinor: sum('CUSTOMER'), merchantFeesMinor: sum('MERCHANT') };
}

/** @example const plan = await loadFeePlan(db, merchantId); */
export async function loadFeePlan(db: Db, merchantId: string): Promise<FeePlan> {
  const row = await db.selectFrom('fee_plans').select('plan').where('merchant_id', '=', merchantId).executeTakeFirst();
  return (row?.plan as FeePlan | undefined) ?? DEFAULT_FEE_PLAN;
}

/** @example await saveFeePlan(db, merchantId, plan); */
export async function saveFeePlan(db: Db, merchantId: string, plan: FeePlan): Promise<void> {
  const json = JSON.stringify(plan);
  await db
    .insertInto('fee_plans')
    .values({ merchant_id: merchantId, plan: json })
    .onConflict((oc) => oc.column('merchant_id').doUpdateSet({ plan: json, updated_at: new Date() }))
    .execute();
}
