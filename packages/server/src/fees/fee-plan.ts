import { Type, type Static } from 'typebox';
import type { Db } from '../db/database';
import { applyPpm } from '../lib/money';
import { AvailabilityScheduleSchema } from './availability';
import { installmentOptions, InstallmentPlanSchema, legacyOptions, type InstallmentOption, type InstallmentPlan } from './installments';

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
  installment_interest_ppm: Type.Integer({ minimum: 0, maximum: 100_000, description: 'customer interest per installment beyond the first (used when the plan has no installment_plan)' }),
  installment_plan: Type.Optional(InstallmentPlanSchema),
  payouts: Type.Array(FeeRuleSchema, { maxItems: 10 }),
  availability: Type.Optional(AvailabilityScheduleSchema),
  dispute_fee_minor: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'charged to the merchant when a chargeback takes money back, in minor units of the payment currency (default 1500)' }),
  ),
});

export type FeeRule = Static<typeof FeeRuleSchema>;
export type FeePlan = Static<typeof FeePlanSchema>;
export type FeeType = FeeRule['type'] | 'INSTALLMENT_INTEREST' | 'INSTALLMENT_FEE';

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
export type PaymentFeeRules = Pick<FeePlan, 'payments' | 'installment_interest_ppm' | 'availability' | 'installment_plan'>;

/**
 * A payment's `fee_rules`, the one encoding every payment stores.
 * @example paymentFeeRules(plan) // { payments: [...], installment_interest_ppm: 0 }
 */
export function paymentFeeRules(plan: PaymentFeeRules): PaymentFeeRules {
  return {
    payments: plan.payments,
    installment_interest_ppm: plan.installment_interest_ppm,
    ...(plan.availability ? { availability: plan.availability } : {}),
    ...(plan.installment_plan ? { installment_plan: plan.installment_plan } : {}),
  };
}

/**
 * A plan's installment plan as it applies to one card scheme: the scheme's own rates in place of the
 * plan-wide ones, and no per-scheme table left. A payment keeps this (in its fee rules), so a later
 * partial capture prices its installments as its creation did without knowing the card.
 * @example forScheme(plan, 'MASTER').installment_plan?.monthly_rate_ppm // the Mastercard rate
 */
export function forScheme<T extends PaymentFeeRules>(plan: T, scheme: string | null | undefined): T {
  const installments = plan.installment_plan;
  if (!installments?.schemes) return plan;
  const { schemes, ...rest } = installments;
  const own = scheme ? schemes[scheme] : undefined;
  return {
    ...plan,
    installment_plan: {
      ...rest,
      monthly_rate_ppm: own?.monthly_rate_ppm ?? rest.monthly_rate_ppm,
      merchant_fee_ppm_per_installment: own?.merchant_fee_ppm_per_installment ?? rest.merchant_fee_ppm_per_installment,
    },
  };
}

/** The most installments a plan sells in (12 for a plan without an installment plan). */
export function maxInstallments(plan: Pick<FeePlan, 'installment_plan'>): number {
  return plan.installment_plan?.max_installments ?? 12;
}

/**
 * Every installment option of a plan for an amount and a card scheme (fees/installments.ts): the
 * installment plan's, or, for a plan without one, its flat installment_interest_ppm.
 * @example planOptions(plan, 10000n, 'VISA').map((o) => o.installmentMinor)
 */
export function planOptions(plan: Pick<FeePlan, 'installment_plan' | 'installment_interest_ppm'>, amountMinor: bigint, scheme?: string | null): InstallmentOption[] {
  return plan.installment_plan ? installmentOptions(plan.installment_plan as InstallmentPlan, amountMinor, scheme) : legacyOptions(plan.installment_interest_ppm, amountMinor);
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
 * Applies fee rules to an amount, and the installments' own charges: the buyer's interest as the
 * customer fee INSTALLMENT_INTEREST, and the merchant's cost of funding installments as the merchant
 * fee INSTALLMENT_FEE (fees/installments.ts; a plan without an installment plan charges its flat
 * installment_interest_ppm per installment beyond the first).
 * @example computeFees(DEFAULT_FEE_PLAN.payments, 10000n) // SERVICE_FEE 338n + TAXES_FEE 38n, both MERCHANT
 */
export function computeFees(
  rules: readonly FeeRule[],
  amountMinor: bigint,
  options: { installments?: number; installmentInterestPpm?: number; installmentPlan?: InstallmentPlan | undefined; scheme?: string | null | undefined } = {},
): FeeBreakdown {
  const fees: AppliedFee[] = rules.map((rule) => ({
    type: rule.type as FeeRule['type'],
    payer: rule.payer as AppliedFee['payer'],
    amountMinor: applyPpm(amountMinor, BigInt(rule.ppm)) + BigInt(rule.fixed_minor),
  }));
  const installments = Math.max(1, options.installments ?? 1);
  if (installments > 1) {
    const chosen = planOptions({ installment_plan: options.installmentPlan, installment_interest_ppm: options.installmentInterestPpm ?? 0 }, amountMinor, options.scheme).find(
      (o) => o.installments === installments,
    );
    if (chosen && chosen.interestMinor > 0n) fees.push({ type: 'INSTALLMENT_INTEREST', payer: 'CUSTOMER', amountMinor: chosen.interestMinor });
    if (chosen && chosen.merchantFeeMinor > 0n) fees.push({ type: 'INSTALLMENT_FEE', payer: 'MERCHANT', amountMinor: chosen.merchantFeeMinor });
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
