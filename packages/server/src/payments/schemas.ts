import { Type, type Static } from 'typebox';
import { PageSchema } from '../http/page';
import { StatusEnum, StringEnum } from '../http/schema-kit';
import { PAYMENT_METHODS } from './methods';
import { PAYMENT_STATUSES } from './states';

/** Request and response schemas of the card payment endpoints, field for field as the spec lists them. */

const Authentication = Type.Object(
  {
    cavv: Type.String({ minLength: 1, maxLength: 64 }),
    xid: Type.Optional(Type.String({ maxLength: 64 })),
    eci: Type.String({ minLength: 1, maxLength: 4 }),
    version: Type.String({ minLength: 1, maxLength: 16, description: '3DS version, e.g. 2.2.0' }),
    dstrans_id: Type.String({ minLength: 1, maxLength: 64, description: 'directory-server transaction id' }),
  },
  { description: '3DS data; required for DEBITCARD' },
);

/** The largest `extra_data`, measured as compact JSON in UTF-8: room for an order's metadata, not for a document store. */
export const EXTRA_DATA_MAX_BYTES = 16 * 1024;

export const SendPaymentBody = Type.Object({
  contract_id: Type.String({ minLength: 1, maxLength: 64 }),
  reference_id: Type.String({ minLength: 1, maxLength: 45 }),
  notification_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://' })),
  public_person_id: Type.String({ minLength: 1, maxLength: 64 }),
  public_card_id: Type.String({ minLength: 1, maxLength: 64 }),
  payment: Type.Object({
    amount: Type.String({ minLength: 1, maxLength: 20, description: 'decimal string, at most 2 decimal places, at least 1.00 BRL' }),
    method: StringEnum(['CREDITCARD', 'DEBITCARD'] as const),
    asset: Type.String({ minLength: 3, maxLength: 3 }),
    installments: Type.Integer({ minimum: 0, maximum: 12, description: '0 or 1 means no installments' }),
    delay_capture: Type.Optional(Type.Boolean({ default: false })),
    soft_descriptor: Type.Optional(Type.String({ maxLength: 22, pattern: '^[\\x20-\\x7e]*$' })),
  }),
  extra_data: Type.Optional(Type.Unknown({ description: `merchant data, returned as given; at most ${EXTRA_DATA_MAX_BYTES} bytes written as JSON` })),
  ip_address: Type.Optional(Type.String({ maxLength: 45, description: 'IPv4 or IPv6' })),
  authentication: Type.Optional(Authentication),
});
export type SendPaymentInput = Static<typeof SendPaymentBody>;

/** The spec's Totals object (payments and subscription charges). */
export const Totals = Type.Object({
  amount: Type.Number({ description: 'amount in BRL' }),
  asset: Type.String(),
  original_amount: Type.Number(),
  original_asset: Type.String(),
  customer_fees: Type.Number(),
  customer_amount: Type.Number(),
}, { title: 'Totals' });

export const PaymentResponse = Type.Object({
  payment_token: Type.String({ format: 'uuid' }),
  refresh_token: Type.String(),
  transaction_status: StatusEnum(PAYMENT_STATUSES),
  public_person_id: Type.String(),
  public_card_id: Type.String(),
  public_card_status: StatusEnum(['ACTIVE']),
  totals: Totals,
  customer_fees: Type.Record(Type.String(), Type.Number(), { description: 'each customer fee by type, e.g. {"INSTALLMENT_INTEREST": 3.5}' }),
}, { title: 'Payment' });

export const PaymentTokenParams = Type.Object({ payment_token: Type.String({ maxLength: 64 }) });

export const CaptureBody = Type.Object({
  amount: Type.Number({ exclusiveMinimum: 0, description: 'at most two decimal places; <= the pre-authorised amount' }),
});

export const StatusResponse = Type.Object({
  payment_token: Type.String(),
  refresh_token: Type.String(),
  transaction_status: StatusEnum(PAYMENT_STATUSES),
}, { title: 'PaymentStatus' });

/** A string, or null where the value is absent (transaction details never answer ""). */
const OrNull = (description?: string) => Type.Unsafe<string | null>({ type: ['string', 'null'], ...(description ? { description } : {}) });

/**
 * The spec's Transaction details resource (docs/payments.md#transaction-details). As a response schema
 * it also gives the answer's serializer, compiled once at start instead of walking each answer.
 */
export const TransactionDetailsResponse = Type.Object(
  {
    general_info: Type.Object({ transaction_status: StatusEnum(PAYMENT_STATUSES), transaction_id: Type.String(), external_id: Type.String(), project_id: Type.String() }),
    customer_info: Type.Object({
      customer_id: OrNull(),
      tax_id: OrNull('masked'),
      tax_id_type: OrNull(),
      payer_tax_id: OrNull('masked'),
      payer_tax_id_type: OrNull(),
      payer_name: OrNull(),
      customer_contact: OrNull(),
      order_ip: OrNull(),
      order_ip_country: OrNull('ISO country of order_ip; null for a private, loopback or unknown address'),
    }),
    payment_info: Type.Object({
      order_method: Type.String(),
      order_method_country: Type.String(),
      card_number: OrNull('masked: at most the first six and last four digits'),
      card_scheme: OrNull(),
      order_amount: Type.Number({ description: 'the order as placed, in order_currency; never changed by a capture or refund' }),
      order_currency: Type.String(),
      payment_amount: Type.Number({ description: 'captured (else authorised) amount plus customer fees, in payment_currency' }),
      payment_currency: Type.String(),
      refunded_amount: Type.Number(),
      error_code: OrNull(),
      error_description: OrNull(),
      expiration_date: OrNull('yyyy-MM-dd HH:mm:ss (UTC)'),
      end_to_end_id: OrNull(),
      subscription_id: OrNull(),
      installments: Type.Integer({ description: 'beyond the spec: the number of installments (1 for none); their interest is the INSTALLMENT_INTEREST customer fee' }),
      flags: Type.Array(Type.String()),
    }),
    fee_info: Type.Object({
      total_fee_values: Type.Number(),
      merchant_amount: Type.Number(),
      fee: Type.Array(
        Type.Object({
          fee_type: Type.String(),
          payer: Type.String(),
          value: Type.Number(),
          currency: Type.String(),
          fxInfo: Type.Object({ original_currency: Type.String(), counter_currency: Type.String(), rate: Type.String(), rate_timestemp: Type.String({ description: 'yyyy-MM-dd' }) }),
        }),
      ),
    }),
    other_info: Type.Object({
      dispute_id: OrNull(),
      three_ds: Type.Union(
        [
          Type.Object({
            eci: Type.String(),
            version: Type.String(),
            outcome: Type.Union([Type.Literal('AUTHENTICATED'), Type.Literal('ATTEMPTED'), Type.Literal('NOT_AUTHENTICATED')]),
            liability_shift: Type.Boolean({ description: 'true when the issuer authenticated the cardholder (fraud chargebacks are then the issuer\'s)' }),
            note: Type.String(),
          }),
          Type.Null(),
        ],
        { description: "beyond the spec: what the payment's 3DS data says (docs/3ds.md); null without 3DS data" },
      ),
    }),
    transaction_history: Type.Array(Type.Object({ status: StatusEnum(PAYMENT_STATUSES), timestamp: Type.String({ description: 'yyyy-MM-dd HH:mm:ss (UTC)' }) })),
    refunds: Type.Array(
      Type.Object({
        refund_id: Type.Integer(),
        payment_token: Type.String(),
        created_at: Type.String(),
        refund_status: Type.String(),
        amount: Type.Number(),
        currency: Type.String(),
        error_code: OrNull(),
        error_description: OrNull(),
      }),
      { description: "beyond the spec: the payment's refunds, oldest first" },
    ),
  },
  { title: 'TransactionDetails', description: 'The Transaction details resource' },
);

/** GET /payments (payments/list-payments.ts). */
export const PaymentListQuery = Type.Object({
  size: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'payments per page, at most 100' }),
  page: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'page number, from 0' }),
  reference_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "the merchant's own reference of the payment (exact)" })),
  status: Type.Optional(StringEnum(PAYMENT_STATUSES)),
  method: Type.Optional(StringEnum(PAYMENT_METHODS)),
  from: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD: created on or after this day (UTC, merchant clock)' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD: created on or before this day' })),
  created_before: Type.Optional(
    Type.String({ format: 'date-time', description: 'ISO 8601 instant: only payments created before it; a client walking the pages pins it, so new payments do not shift them' }),
  ),
});

export const PaymentSummary = Type.Object(
  {
    payment_token: Type.String({ format: 'uuid' }),
    reference_id: Type.String(),
    status: StringEnum(PAYMENT_STATUSES),
    method: StringEnum(PAYMENT_METHODS),
    amount: Type.Number(),
    asset: Type.String(),
    captured: Type.Number(),
    refunded: Type.Number(),
    installments: Type.Integer(),
    created_at: Type.String({ description: 'yyyy-MM-dd HH:mm:ss.SSS (UTC)' }),
  },
  { title: 'PaymentSummary' },
);

export const PaymentPage = PageSchema(PaymentSummary, 'PaymentPage', { refresh_token: Type.String() });
