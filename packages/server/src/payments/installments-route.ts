import { Type } from 'typebox';
import { refreshToken } from '../auth/refresh-token';
import { principalOf, type App, type AppContext } from '../context';
import { loadFeePlan, planOptions } from '../fees/fee-plan';
import { installmentLabel, ratePercent, type InstallmentOption } from '../fees/installments';
import { ApiError } from '../http/errors';
import { errorResponses } from '../http/schema-kit';
import { exponentOf } from '../lib/currencies';
import { toJsonNumber } from '../lib/money';
import { chargedPrice, readPrice } from '../pricing/price';
import { detectCardScheme } from '../rails/cards/card-number';

/** One option as the API shows it (GET /installments, GET /checkout/<id>). */
export const InstallmentOptionView = Type.Object({
  installments: Type.Integer(),
  installment_amount: Type.Number({ description: 'each installment but the last' }),
  last_installment_amount: Type.Number({ description: 'the last installment: the total less the others (the remainder of the rounding)' }),
  total_amount: Type.Number({ description: 'what the buyer pays in all' }),
  interest_amount: Type.Number({ description: "the buyer's interest (the INSTALLMENT_INTEREST customer fee)" }),
  interest_free: Type.Boolean(),
  monthly_rate: Type.String({ description: "the buyer's monthly rate in percent (\"1.99\"); \"0.00\" when interest-free" }),
  label: Type.String({ description: 'as the buyer is shown it: "3x de R$ 34,00 sem juros"' }),
});

/** An option in the API's form, amounts in the currency's decimals. */
export function installmentOptionView(option: InstallmentOption, currency: string) {
  const money = (minor: bigint) => toJsonNumber(minor, exponentOf(currency));
  return {
    installments: option.installments,
    installment_amount: money(option.installmentMinor),
    last_installment_amount: money(option.lastInstallmentMinor),
    total_amount: money(option.totalMinor),
    interest_amount: money(option.interestMinor),
    interest_free: option.interestFree,
    monthly_rate: ratePercent(option.monthlyRatePpm),
    label: installmentLabel(option, currency),
  };
}

const InstallmentsQuery = Type.Object({
  amount: Type.String({ maxLength: 32, description: 'the price, a decimal number such as "102.00"' }),
  asset: Type.String({ maxLength: 8, description: 'its currency; converted into BRL as sendPayment does' }),
  card_bin: Type.Optional(Type.String({ maxLength: 19, description: "the card's first 6 to 8 digits, for its scheme's rates" })),
});

const InstallmentsResponse = Type.Object({
  amount: Type.Number({ description: 'the amount in BRL, after conversion' }),
  currency: Type.String(),
  card_scheme: Type.Union([Type.String(), Type.Null()], { description: 'the scheme of card_bin, whose rates apply; null without one' }),
  max_installments: Type.Integer(),
  options: Type.Array(InstallmentOptionView),
  refresh_token: Type.Optional(Type.String()),
});

/**
 * `GET /installments?amount=&asset=&card_bin=`: the installment options of the merchant's plan for a
 * price, as sendPayment would charge them, so a merchant's own checkout shows what the hosted page shows.
 * @example GET /installments?amount=102.00&asset=BRL&card_bin=411111
 */
export function registerInstallmentRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/installments',
    {
      schema: {
        summary: 'Installment options for a price',
        tags: ['Payments'],
        querystring: InstallmentsQuery,
        response: { 200: InstallmentsResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { merchantId } = principalOf(request);
      const price = readPrice(request.query.amount, request.query.asset, { amountField: 'amount', assetField: 'asset', format: 'a decimal number such as "102.00"', largest: 'the maximum payment' });
      const bin = request.query.card_bin;
      const failures = [price.assetFailure, price.amountFailure].filter((f) => f !== undefined);
      if (bin !== undefined && !/^[0-9]{6,8}$/.test(bin)) failures.push({ key: 'FIELD_FORMAT', description: 'card_bin: must be the first 6 to 8 digits of the card.' });
      if (failures.length > 0 || !price.amount.ok || !price.currency) throw ApiError.fields(failures);
      const charged = await chargedPrice(ctx.db, price.amount.minor, price.currency, 'BRL', 'amount');
      if (charged.failure) throw ApiError.fields([charged.failure]);
      const scheme = bin ? detectCardScheme(bin) : null;
      const plan = await loadFeePlan(ctx.db, merchantId);
      const options = planOptions(plan, charged.quote.convertedMinor, scheme);
      return {
        amount: toJsonNumber(charged.quote.convertedMinor, exponentOf('BRL')),
        currency: 'BRL',
        card_scheme: scheme,
        max_installments: options.length,
        options: options.map((o) => installmentOptionView(o, 'BRL')),
        refresh_token: await refreshToken(ctx, request),
      };
    },
  );
}
