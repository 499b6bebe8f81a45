import type { Db } from '../db/database';

/** The callback types of the contract. */
export type EventType =
  | 'payment.status_changed'
  | 'checkout.status_changed'
  | 'refund.status_changed'
  | 'payout.status_changed'
  | 'subscription_charge.status_changed';

export interface NewEvent {
  merchantId: string;
  type: EventType;
  resourceType: 'payment' | 'checkout' | 'refund' | 'payout' | 'subscription_charge';
  resourceId: string;
  data: Record<string, unknown>;
  /** Where the callback goes: the resource's notification_url (and the checkout's own URL). */
  notificationUrls: readonly (string | null | undefined)[];
}

/**
 * Records an event in the caller's transaction, so the event exists exactly when the status change
 * does (the transactional outbox). Delivery to the merchant reads from here.
 * @example await recordEvent(trx, { merchantId, type: 'payment.status_changed', resourceType: 'payment', resourceId: token, data, notificationUrls: [url] })
 */
export async function recordEvent(db: Db, event: NewEvent): Promise<string> {
  const urls = [...new Set(event.notificationUrls.filter((u): u is string => typeof u === 'string' && u !== ''))];
  const row = await db
    .insertInto('events')
    .values({
      merchant_id: event.merchantId,
      type: event.type,
      resource_type: event.resourceType,
      resource_id: event.resourceId,
      data: JSON.stringify(event.data),
      notification_urls: urls,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
