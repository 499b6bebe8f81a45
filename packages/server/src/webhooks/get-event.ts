import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { eventResources } from './event-resource';
import type { EventResource } from './schemas';
import { isUuid } from '../lib/identifiers';

/** Attempts shown per delivery for one event: about a whole 72-hour schedule. */
const ATTEMPTS_OF_ONE_EVENT = 100;

/**
 * `GET /webhooks/events/<id>`: one of the merchant's events with its deliveries and attempts.
 * Another merchant's event, or an id that is not one, is not found, so ids cannot be probed.
 * @example const event = await getEvent(db, merchantId, eventId);
 */
export async function getEvent(db: Db, merchantId: string, eventId: string): Promise<EventResource> {
  const event = isUuid(eventId)
    ? await db
        .selectFrom('events')
        .select(['id', 'type', 'created_at', 'resource_type', 'resource_id', 'data'])
        .where('id', '=', eventId)
        .where('merchant_id', '=', merchantId)
        .executeTakeFirst()
    : undefined;
  if (!event) throw new ApiError('WEBHOOK_EVENT_NOT_FOUND');
  const [resource] = await eventResources(db, [event], ATTEMPTS_OF_ONE_EVENT);
  if (!resource) throw new ApiError('WEBHOOK_EVENT_NOT_FOUND');
  return resource;
}
