import { Type, type Static } from 'typebox';
import { StringEnum } from '../http/schema-kit';

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
});

export const PaymentResponse = Type.Object({
  payment_token: Type.String({ format: 'uuid' }),
  refresh_token: Type.String(),
  transaction_status: Type.String(),
  public_person_id: Type.String(),
  public_card_id: Type.String(),
  public_card_status: Type.String(),
  totals: Totals,
  customer_fees: Type.Record(Type.String(), Type.Number(), { description: 'each customer fee by type, e.g. {"INSTALLMENT_INTEREST": 3.5}' }),
});

export const PaymentTokenParams = Type.Object({ payment_token: Type.String({ maxLength: 64 }) });

export const CaptureBody = Type.Object({
  amount: Type.Number({ exclusiveMinimum: 0, description: 'at most two decimal places; <= the pre-authorised amount' }),
});

export const StatusResponse = Type.Object({
  payment_token: Type.String(),
  refresh_token: Type.String(),
  transaction_status: Type.String(),
});
