import { sql } from 'kysely';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { getEvent } from './get-event';
import type { EventResource } from './schemas';

/**
 * `POST /webhooks/events/<id>/retry`: delivers an event again now, to each of its notification URLs
 * and to each webhook endpoint it went to that is still there and enabled, whether it was delivered,
 * failed or is still being retried. The delivery starts over: an attempt
 * at once (with the same `webhook-id`), then, should it fail, the normal schedule and a new 72-hour
 * window. The attempt is made by the callback worker; the answer shows the event pending.
 * @example const event = await retryEvent(ctx, merchantId, eventId); // event.status === 'pending'
 */
export async function retryEvent(ctx: AppContext, merchantId: string, eventId: string): Promise<EventResource> {
  const event = await getEvent(ctx.db, merchantId, eventId);
  if (event.deliveries.length === 0) throw new ApiError('WEBHOOK_EVENT_WITHOUT_URL');
  await ctx.db
    .updateTable('webhook_deliveries')
    .set({
      status: 'PENDING',
      next_attempt_at: sql<Date>`now()`,
      window_started_at: sql<Date>`now()`,
      backoff_step: 0,
      manual_retry: true,
      delivered_at: null,
      failed_at: null,
    })
    .where('event_id', '=', event.id)
    .where('merchant_id', '=', merchantId)
    // A deleted or disabled endpoint gets nothing: its delivery stays as it ended.
    .where((eb) =>
      eb.or([
        eb('endpoint_id', 'is', null),
        eb.exists(
          eb
            .selectFrom('webhook_endpoints as w')
            .select('w.id')
            .whereRef('w.id', '=', 'webhook_deliveries.endpoint_id')
            .whereRef('w.merchant_id', '=', 'webhook_deliveries.merchant_id')
            .where('w.enabled', '=', true),
        ),
      ]),
    )
    .execute();
  ctx.workerSignal.poke();
  return getEvent(ctx.db, merchantId, eventId);
}
