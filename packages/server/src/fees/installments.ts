import { Type, type Static } from 'typebox';
import { applyPpm } from '../lib/money';

/**
 * A merchant's installment plan (the fee plan's `installment_plan`, docs/fees.md): the most
 * installments it sells in, how many of them it funds itself ("sem juros": the buyer pays the price,
 * the merchant's fee grows instead), and the buyer's monthly interest rate beyond them, compound by
 * the usual French amortisation ("tabela Price"), per card scheme where acquirers differ.
 */
const SchemeRatesSchema = Type.Object({
  monthly_rate_ppm: Type.Integer({ minimum: 0, maximum: 200_000, description: "the buyer's monthly rate for this scheme, parts per million (19900 = 1.99% a month)" }),
  merchant_fee_ppm_per_installment: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, description: "this scheme's merchant fee per merchant-funded installment beyond the first" })),
});

export const InstallmentPlanSchema = Type.Object({
  max_installments: Type.Integer({ minimum: 1, maximum: 12, description: 'the most installments a card payment may take' }),
  merchant_funded: Type.Integer({ minimum: 1, maximum: 12, description: 'up to this many installments the buyer pays no interest (the merchant funds them); 1: none' }),
  monthly_rate_ppm: Type.Integer({ minimum: 0, maximum: 200_000, description: "the buyer's monthly rate beyond merchant_funded, parts per million (19900 = 1.99% a month)" }),
  merchant_fee_ppm_per_installment: Type.Integer({ minimum: 0, maximum: 100_000, description: 'merchant fee per merchant-funded installment beyond the first, parts per million of the amount' }),
  schemes: Type.Optional(
    Type.Record(Type.String({ enum: ['VISA', 'MASTER', 'ELO', 'AMERICAN_EXPRESS', 'DINERS_CLUB', 'DISCOVER', 'JCB'] }), SchemeRatesSchema, {
      description: 'per card scheme: its own rates, in place of the plan-wide ones',
    }),
  ),
});

export type InstallmentPlan = Static<typeof InstallmentPlanSchema>;

/** One way to pay an amount: n installments, each of `installmentMinor` except the last, which takes the remainder. */
export interface InstallmentOption {
  readonly installments: number;
  /** True when the buyer pays no interest (n is at most the merchant-funded count, or the rate is 0). */
  readonly interestFree: boolean;
  /** Each installment but the last: total / n rounded half up (what the buyer is shown: "10x de R$ 111,27"). */
  readonly installmentMinor: bigint;
  /** The last installment: total − (n − 1) × installmentMinor, so the installments add up to the total. */
  readonly lastInstallmentMinor: bigint;
  /** What the buyer pays in all: the amount plus the interest. */
  readonly totalMinor: bigint;
  /** The buyer's interest: total − amount (a customer fee, INSTALLMENT_INTEREST). */
  readonly interestMinor: bigint;
  /** The merchant's extra fee for funding the installments (a merchant fee, INSTALLMENT_FEE). */
  readonly merchantFeeMinor: bigint;
  /** The buyer's monthly rate applied, in parts per million (0 when interest-free). */
  readonly monthlyRatePpm: number;
}

const MILLION = 1_000_000n;

/** a / b rounded half up, for non-negative integers. */
function divideHalfUp(a: bigint, b: bigint): bigint {
  return (2n * a + b) / (2n * b);
}

/**
 * The rates that apply to a card of `scheme`: the scheme's own, else the plan's.
 * @example ratesFor(plan, 'MASTER') // { monthlyRatePpm: 24900, merchantFeePpm: 12000 }
 */
function ratesFor(plan: InstallmentPlan, scheme: string | null | undefined): { monthlyRatePpm: number; merchantFeePpm: number } {
  const own = scheme ? plan.schemes?.[scheme] : undefined;
  return {
    monthlyRatePpm: own?.monthly_rate_ppm ?? plan.monthly_rate_ppm,
    merchantFeePpm: own?.merchant_fee_ppm_per_installment ?? plan.merchant_fee_ppm_per_installment,
  };
}

/**
 * The tabela Price total of `n` monthly installments on `amountMinor` at `ratePpm` a month, as an exact
 * ratio of integers: n × PMT, where PMT = PV · i / (1 − (1 + i)^−n) and i = ratePpm / 10⁶. With
 * q = 10⁶ + ratePpm that is n · PV · ratePpm · qⁿ / (10⁶ · (qⁿ − 10⁶ⁿ)); without interest, PV / 1.
 */
function priceTotal(amountMinor: bigint, n: number, ratePpm: number): { numerator: bigint; denominator: bigint } {
  if (n <= 1 || ratePpm === 0) return { numerator: amountMinor, denominator: 1n };
  const rate = BigInt(ratePpm);
  const qn = (MILLION + rate) ** BigInt(n);
  return { numerator: BigInt(n) * amountMinor * rate * qn, denominator: MILLION * (qn - MILLION ** BigInt(n)) };
}

/**
 * Every option a plan offers for an amount and a card scheme, 1 to max_installments, in integer minor
 * units. Rounding (docs/fees.md): the total is the exact total rounded half up; each installment is
 * the exact installment (total / n) rounded half up, and the last takes the remainder, total − (n − 1)
 * × installment, so the installments add up to the total exactly.
 * @example installmentOptions(plan, 10000n, 'VISA')[2] // { installments: 3, installmentMinor: 3333n, lastInstallmentMinor: 3334n, … }
 */
export function installmentOptions(plan: InstallmentPlan, amountMinor: bigint, scheme?: string | null): InstallmentOption[] {
  const { monthlyRatePpm, merchantFeePpm } = ratesFor(plan, scheme);
  return Array.from({ length: plan.max_installments }, (_, i) => {
    const n = i + 1;
    const funded = n <= plan.merchant_funded;
    const ratePpm = funded ? 0 : monthlyRatePpm;
    const exact = priceTotal(amountMinor, n, ratePpm);
    return option(amountMinor, n, exact, funded && n > 1 ? applyPpm(amountMinor, BigInt(merchantFeePpm) * BigInt(n - 1)) : 0n, ratePpm);
  });
}

function option(amountMinor: bigint, n: number, exact: { numerator: bigint; denominator: bigint }, merchantFeeMinor: bigint, monthlyRatePpm: number): InstallmentOption {
  const totalMinor = divideHalfUp(exact.numerator, exact.denominator);
  const installmentMinor = divideHalfUp(exact.numerator, exact.denominator * BigInt(n));
  return {
    installments: n,
    interestFree: totalMinor === amountMinor,
    installmentMinor,
    lastInstallmentMinor: totalMinor - installmentMinor * BigInt(n - 1),
    totalMinor,
    interestMinor: totalMinor - amountMinor,
    merchantFeeMinor,
    monthlyRatePpm,
  };
}

/**
 * The plan of a fee plan saved before installment plans existed: up to 12 installments, with its flat
 * `installment_interest_ppm` per installment beyond the first as the buyer's only interest.
 */
export function legacyOptions(installmentInterestPpm: number, amountMinor: bigint): InstallmentOption[] {
  return Array.from({ length: 12 }, (_, i) => {
    const n = i + 1;
    const interestMinor = applyPpm(amountMinor, BigInt(installmentInterestPpm) * BigInt(n - 1));
    return option(amountMinor, n, { numerator: amountMinor + interestMinor, denominator: 1n }, 0n, 0);
  });
}

/**
 * How an option is shown to the buyer, in Brazilian Portuguese as card checkouts word it:
 * "3x de R$ 34,00 sem juros", "10x de R$ 111,27 com juros" ("1x de R$ 102,00" for one installment).
 * @example installmentLabel(option, 'BRL') // '3x de R$ 34,00 sem juros'
 */
export function installmentLabel(option: InstallmentOption, currency: string): string {
  const money = (minor: bigint) =>
    new Intl.NumberFormat('pt-BR', { style: 'currency', currency, minimumFractionDigits: 2 }).format(Number(minor) / 100).replace(/\u00a0/g, ' ');
  if (option.installments === 1) return `1x de ${money(option.totalMinor)}`;
  return `${option.installments}x de ${money(option.installmentMinor)} ${option.interestFree ? 'sem juros' : 'com juros'}`;
}

/** A monthly rate in parts per million as a percentage string: 19900 → "1.99". */
export function ratePercent(ppm: number): string {
  const hundredths = Math.round(ppm / 100);
  return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;
}
