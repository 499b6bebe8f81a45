import { Type, type TSchema } from 'typebox';
import { CHECKOUT_STATUSES } from '../checkout/states';
import { DISPUTE_REASON_CATEGORIES, DISPUTE_STAGES, DISPUTE_STATUSES } from '../disputes/states';
import { StatusEnum } from '../http/schema-kit';
import { PAYMENT_STATUSES } from '../payments/states';
import { PAYOUT_STATUSES } from '../payouts/states';
import { REFUND_STATUSES } from '../refunds/states';
import { CHARGE_STATUSES } from '../subscriptions/states';
import type { EventType } from '../events/outbox';

/**
 * The callback bodies, one schema per event type (docs/callbacks.md), for the `webhooks` section of the
 * OpenAPI document (OpenAPI 3.1): what Colibri POSTs to notification URLs and webhook endpoints. Each
 * `data` is written by its domain (`paymentEventData`, `checkoutEventData`, `refundView`,
 * `payoutEventData`, `announceCharge`, `disputeEventData`) and carries the event's `sequence`; fields may
 * be added, never removed or renamed, so the schemas allow more properties than they list.
 */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const NullableText = Nullable(Type.String());
const Amount = Type.Number({ description: 'a decimal amount as a JSON number, from the exact value' });
const Sequence = Type.Integer({ description: 'grows with each event of the same resource (not consecutive): keep the highest applied' });
const ErrorCode = { error_code: NullableText, error_description: NullableText };

const PaymentData = Type.Object(
  {
    payment_token: Type.String(),
    reference_id: Type.String(),
    status: StatusEnum(PAYMENT_STATUSES),
    method: Type.String({ description: 'CREDITCARD, DEBITCARD, PIX, BOLETO, OXXO, PAYNET, SPEI or PICPAY' }),
    amount: Amount,
    asset: Type.String(),
    customer_amount: Amount,
    captured_amount: Amount,
    refunded_amount: Amount,
    ...ErrorCode,
    sequence: Sequence,
  },
  { title: 'PaymentStatusChangedData' },
);

const CheckoutData = Type.Object(
  {
    checkout_id: Type.String(),
    reference_id: Type.String(),
    checkout_reference_id: NullableText,
    status: StatusEnum(CHECKOUT_STATUSES),
    mode: StatusEnum(['SINGLE', 'MULTI']),
    methods: Type.Array(Type.String()),
    amount: Amount,
    asset: Type.String(),
    payment_token: NullableText,
    end_reason: NullableText,
    expires_at: Type.String({ description: 'yyyy-MM-dd HH:mm:ss' }),
    sequence: Sequence,
  },
  { title: 'CheckoutStatusChangedData' },
);

const RefundData = Type.Object(
  {
    refund_id: Type.Integer(),
    payment_token: Type.String(),
    reference_id: Type.String({ description: "the refunded payment's reference_id" }),
    created_at: Type.String({ description: 'yyyy-MM-dd HH:mm:ss.SSS' }),
    refund_status: StatusEnum(REFUND_STATUSES),
    amount: Amount,
    currency: Type.String(),
    ...ErrorCode,
    sequence: Sequence,
  },
  { title: 'RefundStatusChangedData' },
);

const PayoutData = Type.Object(
  {
    tx_id: Type.String(),
    reference_id: Type.String(),
    status: StatusEnum(PAYOUT_STATUSES),
    amount: Amount,
    asset: Type.String(),
    customer_amount: Amount,
    merchant_amount: Amount,
    ...ErrorCode,
    sequence: Sequence,
  },
  { title: 'PayoutStatusChangedData' },
);

const SubscriptionChargeData = Type.Object(
  {
    charge_id: Type.String(),
    subscription_id: Type.String(),
    reference_id: Type.String(),
    status: StatusEnum(CHARGE_STATUSES),
    due_date: Type.String({ description: 'YYYY-MM-DD' }),
    amount: Amount,
    asset: Type.String(),
    transaction_id: Nullable(Type.String({ description: "the charge's payment token" })),
    attempts: Type.Integer(),
    ...ErrorCode,
    sequence: Sequence,
  },
  { title: 'SubscriptionChargeStatusChangedData' },
);

const DisputeData = Type.Object(
  {
    dispute_id: Type.String(),
    payment_token: Type.String(),
    reference_id: Type.String(),
    status: StatusEnum(DISPUTE_STATUSES),
    stage: StatusEnum(DISPUTE_STAGES),
    reason_category: StatusEnum(DISPUTE_REASON_CATEGORIES),
    amount: Amount,
    asset: Type.String(),
    evidence_due_by: Nullable(Type.String({ description: 'yyyy-MM-dd HH:mm:ss' })),
    reminder: Type.Optional(StatusEnum(['EVIDENCE_DUE_SOON'], { description: 'present on the warning 48 hours before evidence_due_by' })),
    sequence: Sequence,
  },
  { title: 'DisputeStatusChangedData' },
);

/** Each event type with its data schema, the name of its body schema and what it reports. */
const EVENTS: readonly { type: EventType; data: TSchema; title: string; operationId: string; summary: string }[] = [
  { type: 'payment.status_changed', data: PaymentData, title: 'PaymentStatusChangedEvent', operationId: 'paymentStatusChanged', summary: 'A payment changed status' },
  { type: 'checkout.status_changed', data: CheckoutData, title: 'CheckoutStatusChangedEvent', operationId: 'checkoutStatusChanged', summary: 'A hosted checkout session changed status' },
  { type: 'refund.status_changed', data: RefundData, title: 'RefundStatusChangedEvent', operationId: 'refundStatusChanged', summary: 'A refund changed status' },
  { type: 'payout.status_changed', data: PayoutData, title: 'PayoutStatusChangedEvent', operationId: 'payoutStatusChanged', summary: 'A payout changed status' },
  {
    type: 'subscription_charge.status_changed',
    data: SubscriptionChargeData,
    title: 'SubscriptionChargeStatusChangedEvent',
    operationId: 'subscriptionChargeStatusChanged',
    summary: 'A subscription charge changed status',
  },
  { type: 'dispute.status_changed', data: DisputeData, title: 'DisputeStatusChangedEvent', operationId: 'disputeStatusChanged', summary: 'A dispute changed status (or its evidence is due soon)' },
];

/** The body of one event type's callback: `{id, type, created_at, data}`. */
function eventBody(event: (typeof EVENTS)[number]): TSchema {
  return Type.Object(
    {
      id: Type.String({ format: 'uuid', description: 'the event id, also the webhook-id header: the same on every retry' }),
      type: Type.Literal(event.type),
      created_at: Type.String({ format: 'date-time', description: 'when the event was recorded, ISO 8601 in UTC with milliseconds' }),
      data: event.data,
    },
    { title: event.title },
  );
}

const SIGNATURE_HEADERS = [
  { name: 'webhook-id', description: 'the event id, equal to the body id', schema: { type: 'string', format: 'uuid' } },
  { name: 'webhook-timestamp', description: 'when this attempt was signed, in Unix seconds', schema: { type: 'string', pattern: '^\\d+$' } },
  {
    name: 'webhook-signature',
    description: 'Standard Webhooks: v1,<base64 HMAC-SHA256 of "id.timestamp.body">, one entry per secret that signs now, separated by spaces',
    schema: { type: 'string' },
  },
].map((header) => ({ ...header, in: 'header', required: true }));

/**
 * The `webhooks` section of the OpenAPI document: one operation per event type, the callback Colibri
 * makes to the merchant's notification URLs and webhook endpoints. The body schemas carry titles, so
 * the document names them as components (PaymentStatusChangedEvent, …) and clients get a type per event.
 * @example finishOpenApi(document, { webhooks: callbackWebhooks() })
 */
export function callbackWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    EVENTS.map((event) => [
      event.type,
      {
        post: {
          operationId: event.operationId,
          summary: event.summary,
          description: `Colibri POSTs this to the notification URL of the resource and to each enabled webhook endpoint whose enabled_events include "${event.type}" or "*", signed per Standard Webhooks (docs/callbacks.md).`,
          tags: ['Callbacks'],
          security: [],
          parameters: SIGNATURE_HEADERS,
          requestBody: { required: true, content: { 'application/json': { schema: eventBody(event) } } },
          responses: {
            '200': { description: 'Any 2xx answer within 15 seconds delivers the callback' },
            '400': { description: 'Any other answer (or none) is a failed attempt, retried for 72 hours; a receiver answers 400 to a signature that does not verify' },
          },
        },
      },
    ]),
  );
}
