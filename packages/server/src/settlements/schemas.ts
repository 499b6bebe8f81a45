import { Type } from 'typebox';
import { PageSchema } from '../http/page';
import { StatusEnum, StringEnum } from '../http/schema-kit';
import { SETTLEMENT_COUNTRIES } from './settlement-days';
import { SETTLEMENT_STATUSES } from './states';

/** Request and response schemas of the settlement endpoints (CONTRACTS.md; docs/balance-and-settlements.md, "Settlements"). */

const Time = (description: string) => Type.Union([Type.String({ description }), Type.Null()]);
const Nullable = (description: string) => Type.Union([Type.String({ description }), Type.Null()]);
const SETTLEMENT_CURRENCIES = Object.keys(SETTLEMENT_COUNTRIES);

export const SettlementDestinationSchema = Type.Union(
  [
    Type.Object({ kind: Type.Literal('PIX_KEY'), pix_key: Type.String(), pix_key_type: Type.String({ description: 'CPF, CNPJ, EMAIL, PHONE or EVP' }) }),
    Type.Object({
      kind: Type.Literal('BANK_ACCOUNT'),
      type: StatusEnum(['CHECKING', 'SAVINGS']),
      bank_number: Type.String(),
      agency_number: Type.String(),
      agency_check_digit: Type.Union([Type.String(), Type.Null()]),
      account_number: Type.String(),
      account_check_digit: Type.String(),
    }),
    Type.Object({ kind: Type.Literal('CLABE'), bank_code: Type.String(), clabe: Type.String() }),
  ],
  { title: 'SettlementDestination', description: "The merchant's own account: a PIX key or a Brazilian bank account (BRL), a CLABE (MXN)" },
);

export const SettlementFields = {
  settlement_id: Type.String({ format: 'uuid' }),
  amount: Type.Number({ description: 'all of the available balance of its currency when it was made' }),
  asset: Type.String({ description: 'BRL or MXN' }),
  status: StatusEnum(SETTLEMENT_STATUSES),
  arrival_date: Type.String({ description: 'YYYY-MM-DD: when the money is in the account, the next business day after it was sent (expected, while PENDING)' }),
  settlement_date: Type.String({ description: 'YYYY-MM-DD: the business day it was made for (one per currency and day)' }),
  destination: SettlementDestinationSchema,
  failure_code: Nullable("why it FAILED: the bank's refusal in Colibri's outcome codes (ACCOUNT_CLOSED, …), or CANCELED when the operator held the merchant first"),
  failure_description: Nullable('the failure in words'),
  created_at: Type.String({ description: 'yyyy-MM-dd HH:mm:ss (UTC, merchant clock)' }),
  in_transit_at: Time('when it was handed to the bank'),
  paid_at: Time('when the bank took it'),
  failed_at: Time('when it failed; its money is available again'),
};

export const SettlementResponse = Type.Object({ ...SettlementFields, refresh_token: Type.String() }, { title: 'Settlement' });
export const SettlementItem = Type.Object(SettlementFields, { title: 'SettlementItem' });
export const SettlementPage = PageSchema(SettlementItem, 'SettlementPage', { refresh_token: Type.String() });

export const SettlementParams = Type.Object({ settlement_id: Type.String({ maxLength: 64 }) });

export const SettlementListQuery = Type.Object({
  size: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'settlements per page, at most 100' }),
  page: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'page number, from 0' }),
  status: Type.Optional(StringEnum(SETTLEMENT_STATUSES)),
  from: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD: settlement_date on or after this day' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD: settlement_date on or before this day' })),
});

const DestinationInput = Type.Object(
  {
    pix_key: Type.Optional(Type.String({ maxLength: 77, description: 'BRL: a CPF, CNPJ, e-mail, +55 mobile or random key' })),
    type: Type.Optional(Type.String({ maxLength: 16, description: 'BRL bank account: CHECKING or SAVINGS' })),
    bank_number: Type.Optional(Type.String({ maxLength: 16, description: 'BRL bank account: the 3-digit COMPE code' })),
    agency_number: Type.Optional(Type.String({ maxLength: 16 })),
    agency_check_digit: Type.Optional(Type.String({ maxLength: 16 })),
    account_number: Type.Optional(Type.String({ maxLength: 32 })),
    account_check_digit: Type.Optional(Type.String({ maxLength: 16 })),
    clabe: Type.Optional(Type.String({ maxLength: 32, description: 'MXN: the 18-digit CLABE' })),
    bank_code: Type.Optional(Type.Integer({ minimum: 0, maximum: 999, description: "MXN: the CLABE's bank, checked against it" })),
  },
  { additionalProperties: false, title: 'SettlementDestinationInput' },
);

export const SettlementSettingsBody = Type.Object(
  {
    paused: Type.Optional(Type.Boolean({ description: 'true: no settlement is made until it is false again' })),
    currencies: Type.Optional(
      Type.Array(
        Type.Object(
          {
            asset: Type.String({ maxLength: 3, description: 'BRL or MXN' }),
            minimum: Type.Optional(Type.Number({ description: 'the least available amount settled (default 100.00)' })),
            destination: Type.Optional(Type.Union([DestinationInput, Type.Null()], { description: 'omitted: kept; null: removed (no more settlements in this currency)' })),
          },
          { additionalProperties: false },
        ),
        { maxItems: SETTLEMENT_CURRENCIES.length },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const SettlementSettingsResponse = Type.Object(
  {
    paused: Type.Boolean(),
    held: Type.Boolean({ description: 'the operator holds this merchant: no settlement is made or sent' }),
    currencies: Type.Array(Type.Object({ asset: Type.String(), minimum: Type.Number(), destination: SettlementDestinationSchema })),
    refresh_token: Type.String(),
  },
  { title: 'SettlementSettings' },
);

export const HoldBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500, description: "the operator's reason, shown to operators only" }) }, { additionalProperties: false });

export const HoldResponse = Type.Object(
  {
    merchant_id: Type.String({ format: 'uuid' }),
    held: Type.Boolean(),
    held_reason: Nullable("the operator's reason"),
    held_at: Time('yyyy-MM-dd HH:mm:ss (UTC, merchant clock)'),
    paused: Type.Boolean({ description: "the merchant's own pause" }),
    failed_settlement_ids: Type.Array(Type.String({ format: 'uuid' }), { description: 'the PENDING settlements the hold failed (their money is available again)' }),
  },
  { title: 'SettlementHold' },
);
