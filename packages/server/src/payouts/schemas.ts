import { Type, type Static } from 'typebox';
import { StringEnum, withError } from '../http/schema-kit';
import { PAYOUT_STATUSES } from './states';

/** The most payout items one `POST /payoutTransaction` may carry (docs/payouts.md, "Batch limit"). */
export const PAYOUT_BATCH_MAX_ITEMS = 1000;

/**
 * A payout item as OpenAPI shows it. It constrains nothing on purpose: the schema has no `type` and
 * its properties none either, so every item reaches the payout validation (validation/validate-payout.ts),
 * which reports each problem with the code of its own rule (02.01.xxxx) and in the documented order,
 * where a schema would answer the same mistakes with generic field codes.
 */
const PayoutItemInput = Type.Unsafe<unknown>({
  title: 'Payout item',
  description: 'Validated whole by the rules of docs/payouts.md ("Validation rules"); one bad item refuses the batch.',
  properties: {
    original_amount: { description: 'JSON number or decimal string, in original_currency', examples: [1500.75] },
    original_currency: { description: "the currency of original_amount: the country's (CO: COP; PE: PEN; CL: CLP) or another of Colibri's currencies, converted at the stored rate (FX)", examples: ['PEN', 'USD'] },
    payment_currency: { description: 'CO: COP; PE: PEN; CL: CLP', examples: ['PEN'] },
    payment_country: { description: 'CO, PE or CL', examples: ['PE'] },
    payout_method: { description: 'BANK_TRANSFER', examples: ['BANK_TRANSFER'] },
    contract_id: { description: "the merchant's payout_contract_id", examples: ['PO-7KQ2M9XW3HRA'] },
    reference_id: { description: "the merchant's own reference", examples: ['pe-cc-0001'] },
    notification_url: { description: 'absolute http(s) URL for the callbacks', examples: ['https://merchant.example.com/payouts/callback'] },
    required_CO: { description: 'recipient bank data when payment_country is CO' },
    required_PE: { description: 'recipient bank data when payment_country is PE' },
    required_CL: { description: 'recipient bank data when payment_country is CL' },
  },
});

export const CreatePayoutsBody = Type.Object({
  payoutTransactions: withError(
    Type.Array(PayoutItemInput, { maxItems: PAYOUT_BATCH_MAX_ITEMS, description: `1 to ${PAYOUT_BATCH_MAX_ITEMS} payout items` }),
    'PAYOUT_BATCH_TOO_LARGE',
    `must have at most ${PAYOUT_BATCH_MAX_ITEMS} payout items.`,
  ),
});
export type CreatePayoutsInput = Static<typeof CreatePayoutsBody>;

const payoutItemProperties = {
  tx_id: Type.String({ format: 'uuid', description: 'payout identifier' }),
  reference_id: Type.String({ description: 'merchant reference' }),
  amount: Type.Number({ description: 'the amount in asset (original_amount after FX)' }),
  original_amount: Type.Number(),
  original_asset: Type.String({ description: 'currency code of original_amount' }),
  customer_fees: Type.Number({ description: "fees borne by the recipient, withheld from the transfer" }),
  customer_amount: Type.Number({ description: "amount − customer_fees: what reaches the recipient's account" }),
  merchant_fees: Type.Number({ description: 'fees charged to the merchant' }),
  merchant_amount: Type.Number({ description: "amount + merchant_fees: what the merchant's balance is charged" }),
  asset: Type.String({ description: 'currency code of amount, fees and totals (the payment currency)' }),
  banking_data: Type.String({ description: '<bank_code>:<account_type>:<account_number>', examples: ['002:CC:1932345678012'] }),
  status: StringEnum(PAYOUT_STATUSES),
  fx_rate: Type.Optional(Type.String({ description: 'with FX only: asset units per original_asset unit, the exact decimal applied', examples: ['3898.6861313869'] })),
  fx_rate_date: Type.Optional(Type.String({ description: 'with FX only: the date of the rate (YYYY-MM-DD)' })),
};

export const PayoutItemResponse = Type.Object(payoutItemProperties, { title: 'Payout' });

export const CreatePayoutsResponse = Type.Object({
  payoutTransactionResponses: Type.Array(PayoutItemResponse),
  refresh_token: Type.String(),
}, { title: 'PayoutBatch' });

export const GetPayoutResponse = Type.Object({
  ...payoutItemProperties,
  error_code: Type.Optional(Type.String({ description: "the processor's reason, when REJECTED or CANCELED" })),
  error_description: Type.Optional(Type.String()),
  refresh_token: Type.String(),
}, { title: 'PayoutTransaction' });

export const PayoutParams = Type.Object({ tx_id: Type.String({ maxLength: 64 }) });
