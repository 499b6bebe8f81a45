import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './generated/openapi.js';

type Schemas = components['schemas'];

/**
 * Every callback body, from the `webhooks` section of the service's OpenAPI document: one member per
 * event type, its `data` typed for that type (docs/callbacks.md).
 */
type AnyCallbackEvent =
  | Schemas['PaymentStatusChangedEvent']
  | Schemas['CheckoutStatusChangedEvent']
  | Schemas['RefundStatusChangedEvent']
  | Schemas['PayoutStatusChangedEvent']
  | Schemas['SubscriptionChargeStatusChangedEvent']
  | Schemas['DisputeStatusChangedEvent'];

/** The callback types (docs/callbacks.md). */
export type CallbackType = AnyCallbackEvent['type'];

/**
 * A callback body: `{id, type, created_at, data}`, a union discriminated by `type`: checking `type`
 * narrows `data` to that event's fields (a payment's `payment_token` and `status`, a refund's
 * `refund_status`, …). Every `data` carries `reference_id` and `sequence`. `CallbackEvent<'refund.status_changed'>`
 * is one member.
 * @example
 * if (event.type === 'payment.status_changed' && event.data.status === 'PAID') release(event.data.reference_id);
 * if (event.type === 'refund.status_changed') console.log(event.data.refund_status, event.data.amount);
 */
export type CallbackEvent<T extends CallbackType = CallbackType> = Extract<AnyCallbackEvent, { type: T }>;

/** A callback whose signature, timestamp or body does not verify. */
export class CallbackVerificationError extends Error {
  override readonly name = 'CallbackVerificationError';
}

/**
 * Verifies a callback per Standard Webhooks with the merchant's `webhook_secret` (`whsec_…`) and
 * returns its body. Pass the raw body exactly as received (a string or bytes, not re-serialised JSON)
 * and the request's headers. Timestamps more than 5 minutes away are refused, which stops replays.
 * During a secret rotation callbacks carry two signatures; either secret verifies.
 * @example
 * const event = verifyCallback(rawBody, request.headers, process.env.COLIBRI_WEBHOOK_SECRET!);
 * if (event.type === 'payment.status_changed' && event.data.status === 'PAID') …
 */
export function verifyCallback(payload: string | Uint8Array, headers: Headers | Record<string, string | string[] | undefined>, secret: string): CallbackEvent {
  const flat: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((value, key) => (flat[key] = value));
  else for (const [key, value] of Object.entries(headers)) if (value !== undefined) flat[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  const text = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  try {
    return new Webhook(secret).verify(text, flat) as CallbackEvent;
  } catch (error) {
    if (error instanceof WebhookVerificationError) throw new CallbackVerificationError(error.message);
    throw error;
  }
}

/**
 * Signs a body as the service signs callbacks, for tests of a receiver (and for `colibri listen`).
 * @example const headers = signCallback(secret, event.id, new Date(), JSON.stringify(event));
 */
export function signCallback(secret: string, id: string, at: Date, payload: string): Record<string, string> {
  const signature = new Webhook(secret).sign(id, at, payload);
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}
