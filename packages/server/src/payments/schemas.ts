import { Type, type Static } from 'typebox';
import { StatusEnum, StringEnum } from '../http/schema-kit';
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
  extra_data: Type.Optional(Type.Unknown({ description: 'merchant data, returned as given' })),
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

const NullableString = Type.Union([Type.String(), Type.Null()]);

/**
 * The spec's Transaction details resource (`GET /transactionDetails/<payment_token>`), group by group,
 * plus the payment's refunds. Amounts are JSON numbers as the spec shows them.
 */
export const TransactionDetails = Type.Object(
  {
    general_info: Type.Object({
      transaction_status: StatusEnum(PAYMENT_STATUSES),
      transaction_id: Type.String(),
      external_id: Type.String({ description: 'the reference_id of the payment' }),
      project_id: Type.String({ description: 'the contract id' }),
    }),
    customer_info: Type.Object({
      customer_id: Type.String(),
      tax_id: Type.String({ description: 'masked' }),
      tax_id_type: Type.String(),
      payer_tax_id: Type.String({ description: 'masked' }),
      payer_tax_id_type: Type.String(),
      payer_name: Type.String(),
      customer_contact: Type.String(),
      order_ip: Type.String(),
      order_ip_country: NullableString,
    }),
    payment_info: Type.Object({
      order_method: Type.String(),
      order_method_country: Type.String(),
      card_number: Type.String({ description: 'masked' }),
      card_scheme: Type.String(),
      order_amount: Type.Number(),
      order_currency: Type.String(),
      payment_amount: Type.Number(),
      payment_currency: Type.String(),
      refunded_amount: Type.Number(),
      error_code: NullableString,
      error_description: NullableString,
      expiration_date: Type.String({ description: 'yyyy-MM-dd HH:mm:ss, or empty' }),
      end_to_end_id: Type.String(),
      subscription_id: Type.String(),
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
          fxInfo: Type.Union([
            Type.Object({ original_currency: Type.String(), counter_currency: Type.String(), rate: Type.String(), rate_timestemp: Type.String() }),
            Type.Null(),
          ]),
        }),
      ),
    }),
    other_info: Type.Object({ dispute_id: Type.String() }),
    transaction_history: Type.Array(Type.Object({ status: StatusEnum(PAYMENT_STATUSES), timestamp: Type.String({ description: 'yyyy-MM-dd HH:mm:ss' }) }), {
      description: 'newest first',
    }),
    refunds: Type.Array(
      Type.Object({
        refund_id: Type.Integer(),
        payment_token: Type.String(),
        created_at: Type.String({ description: 'yyyy-MM-dd HH:mm:ss.SSS' }),
        refund_status: StatusEnum(['REQUESTED', 'PROCESSING', 'COMPLETED', 'FAILED'] as const),
        amount: Type.Number(),
        currency: Type.String(),
        error_code: NullableString,
        error_description: NullableString,
      }),
      { description: 'the payment\'s refunds, oldest first (beyond the spec: docs/refunds.md)' },
    ),
  },
  { title: 'TransactionDetails' },
);
