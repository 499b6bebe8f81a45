import { Totals } from '../payments/schemas';
import { Type, type Static } from 'typebox';
import { StatusEnum, StringEnum } from '../http/schema-kit';
import { PAYMENT_STATUSES } from '../payments/states';
import { CHARGE_STATUSES, SUBSCRIPTION_INTERVALS, SUBSCRIPTION_STATUSES } from './states';

/**
 * Request and response schemas of the subscription endpoints. The schemas check shape, type and
 * length; the rules that need the subscription, the merchant clock or the calendar (amount only for
 * one amount type, real dates, date windows) live in the verbs and answer 04.01 codes.
 */

/** The largest page GET /subscriptions and GET /subscriptions/<id>/charges answer. */
export const MAX_PAGE_SIZE = 100;

const Amount = Type.Union([Type.Number({ minimum: 0 }), Type.String({ minLength: 1, maxLength: 20 })], {
  description: 'decimal number or decimal string, at most 2 decimal places, at least 1.00 BRL after conversion',
});
const IsoDateString = Type.String({ minLength: 1, maxLength: 10, description: 'YYYY-MM-DD', examples: ['2026-12-25'] });
const ReferenceId = Type.String({ minLength: 1, maxLength: 45 });

export const CreateSubscriptionBody = Type.Object(
  {
    public_person_id: Type.String({ minLength: 1, maxLength: 64 }),
    public_card_id: Type.String({ minLength: 1, maxLength: 64 }),
    amount_type: StringEnum(['FIXED', 'VARIABLE'] as const),
    amount: Type.Optional(Amount),
    asset: Type.Optional(Type.String({ minLength: 3, maxLength: 3, description: 'currency of amount; required for FIXED, refused for VARIABLE' })),
    interval: StringEnum(SUBSCRIPTION_INTERVALS),
    first_due_date: IsoDateString,
    force_work_day: Type.Optional(Type.Boolean({ description: 'move due dates on weekends and Brazilian banking holidays to the next business day; default false' })),
    reference_id: Type.Optional(ReferenceId),
    notification_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://' })),
  },
  { title: 'Create subscription request' },
);
export type CreateSubscriptionInput = Static<typeof CreateSubscriptionBody>;

export const CreateChargeBody = Type.Object(
  {
    due_date: IsoDateString,
    amount: Type.Optional(Amount),
    asset: Type.Optional(Type.String({ minLength: 3, maxLength: 3, description: 'only, and then required, for VARIABLE subscriptions' })),
    force_work_day: Type.Optional(Type.Boolean({ description: "overrides the subscription's setting for this charge" })),
    reference_id: Type.Optional(ReferenceId),
  },
  { title: 'Create subscription charge request' },
);
export type CreateChargeInput = Static<typeof CreateChargeBody>;

export const SubscriptionParams = Type.Object({ subscription_id: Type.String({ maxLength: 64 }) });

export const PageQuery = Type.Object({
  page: Type.Integer({ minimum: 0, maximum: 100_000, default: 0 }),
  size: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 }),
  status: Type.Optional(StringEnum(SUBSCRIPTION_STATUSES)),
});
export type PageQueryInput = Static<typeof PageQuery>;

export const ChargePageQuery = Type.Object({
  page: Type.Integer({ minimum: 0, maximum: 100_000, default: 0 }),
  size: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 }),
});

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const Subscription = Type.Object(
  {
    subscription_id: Type.String({ format: 'uuid' }),
    status: StringEnum(SUBSCRIPTION_STATUSES),
    public_person_id: Type.String(),
    public_card_id: Type.String(),
    amount_type: Type.String(),
    amount: NullableNumber,
    asset: NullableString,
    interval: Type.String(),
    first_due_date: Type.String(),
    force_work_day: Type.Boolean(),
    reference_id: NullableString,
    notification_url: NullableString,
    next_due_date: Type.Union([Type.String({ description: 'the next automatic charge (FIXED, not CANCELED)' }), Type.Null()]),
    created_at: Type.String({ description: 'yyyy-MM-dd HH:mm:ss (UTC, merchant clock)' }),
    canceled_at: NullableString,
  },
  { title: 'Subscription' },
);

export const SubscriptionResponse = Type.Object({ ...Subscription.properties, refresh_token: Type.String() }, { title: 'SubscriptionCreated' });

export const SubscriptionPage = Type.Object({
  content: Type.Array(Subscription),
  page: Type.Integer(),
  size: Type.Integer(),
  total_elements: Type.Integer(),
  total_pages: Type.Integer(),
  refresh_token: Type.String(),
}, { title: 'SubscriptionPage' });

/** The spec's Subscription charge resource, field for field. */
export const ChargeResponse = Type.Object(
  {
    subscription_id: Type.String({ format: 'uuid' }),
    reference_id: Type.String(),
    status: StringEnum(CHARGE_STATUSES),
    transaction_id: Type.String({ format: 'uuid' }),
    transaction_status: StatusEnum(PAYMENT_STATUSES, { description: 'PROCESSING when due now; CREATED when the due date is still ahead' }),
    transaction_reference_id: Type.String(),
    totals: Totals,
    refresh_token: Type.String(),
  },
  { title: 'SubscriptionChargeCreated' },
);

export const Charge = Type.Object(
  {
    charge_id: Type.String({ format: 'uuid' }),
    subscription_id: Type.String({ format: 'uuid' }),
    reference_id: Type.String(),
    status: StringEnum(CHARGE_STATUSES),
    due_date: Type.String({ description: 'the day the charge is attempted on, after the business-day rule' }),
    requested_due_date: Type.String({ description: 'the due date as asked or scheduled' }),
    automatic: Type.Boolean({ description: 'made by the schedule of a FIXED subscription' }),
    amount: Type.Number(),
    asset: Type.String(),
    transaction_id: NullableString,
    transaction_status: NullableString,
    attempts: Type.Integer(),
    next_attempt_on: NullableString,
    error_code: NullableString,
    error_description: NullableString,
    created_at: Type.String(),
    paid_at: NullableString,
    failed_at: NullableString,
    canceled_at: NullableString,
  },
  { title: 'SubscriptionCharge' },
);

export const ChargePage = Type.Object({
  content: Type.Array(Charge),
  page: Type.Integer(),
  size: Type.Integer(),
  total_elements: Type.Integer(),
  total_pages: Type.Integer(),
  refresh_token: Type.String(),
}, { title: 'SubscriptionChargePage' });
