import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** The callback types (docs/callbacks.md). */
export type CallbackType =
  | 'payment.status_changed'
  | 'checkout.status_changed'
  | 'refund.status_changed'
  | 'payout.status_changed'
  | 'subscription_charge.status_changed'
  | 'dispute.status_changed';

/**
 * A callback body: `{id, type, created_at, data}`. `data` carries the resource's ids, `reference_id`,
 * the new status (`status`; `refund_status` for refunds) and `sequence` (docs/callbacks.md).
 */
export interface CallbackEvent<T extends CallbackType = CallbackType> {
  id: string;
  type: T;
  created_at: string;
  data: { status?: string; refund_status?: string; sequence: number; reference_id?: string | null } & Record<string, unknown>;
}

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
