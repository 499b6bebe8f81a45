import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { eventResources } from './event-resource';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type EventResource, type EventStatus, type ListEventsInput } from './schemas';
import { isUuid } from '../lib/identifiers';

/** Attempts shown per delivery in a list; one event's page shows more (get-event.ts). */
const ATTEMPTS_IN_LIST = 10;

/**
 * The status filter in SQL, from the deliveries of each event, mirroring `eventStatus`.
 * Events are few per page, and each test is an index lookup on webhook_deliveries by event_id (the key led by it, migration 0043).
 */
const STATUS_FILTER: Record<EventStatus, Expression<SqlBool>> = {
  pending: sql<SqlBool>`exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'PENDING')`,
  failed: sql<SqlBool>`exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'FAILED')
    and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'PENDING')`,
  delivered: sql<SqlBool>`exists (select 1 from webhook_deliveries d where d.event_id = e.id)
    and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status <> 'DELIVERED')`,
  skipped: sql<SqlBool>`not exists (select 1 from webhook_deliveries d where d.event_id = e.id)`,
};

/**
 * A page position: the creation time in microseconds (the database's precision, which a JavaScript
 * Date would round away) and the id of the last event shown. Pages are keyed, not numbered, so
 * events recorded while a merchant pages through do not shift what the next page holds.
 */
function encodeCursor(createdMicros: string, id: string): string {
  return Buffer.from(`${createdMicros}.${id}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): { createdMicros: string; id: string } {
  const match = /^(\d{1,20})\.([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || !isUuid(match[2] ?? '')) throw new ApiError('WEBHOOK_CURSOR_INVALID');
  return { createdMicros: match[1] ?? '', id: match[2] ?? '' };
}

/**
 * `GET /webhooks/events`: the merchant's events, newest first, with their deliveries and recent
 * attempts, filtered and paged (at most 100 per page).
 * @example const page = await listEvents(db, merchantId, { status: 'failed', limit: 50 });
 */
export async function listEvents(
  db: Db,
  merchantId: string,
  input: ListEventsInput,
): Promise<{ events: EventResource[]; has_more: boolean; next_cursor: string | null }> {
  const limit = Math.min(input.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  if (input.created_from && input.created_to && new Date(input.created_from) > new Date(input.created_to)) {
    throw new ApiError('WEBHOOK_DATE_RANGE_INVALID');
  }
  let query = db
    .selectFrom('events as e')
    .select(['e.id', 'e.type', 'e.created_at', 'e.resource_type', 'e.resource_id', 'e.data'])
    .select(sql<string>`(extract(epoch from e.created_at) * 1000000)::bigint::text`.as('created_micros'))
    .where('e.merchant_id', '=', merchantId);
  if (input.type) query = query.where('e.type', '=', input.type);
  if (input.resource_id) query = query.where('e.resource_id', '=', input.resource_id);
  if (input.created_from) query = query.where('e.created_at', '>=', new Date(input.created_from));
  // Times are shown to the millisecond, so created_to takes in the whole millisecond it names: an
  // event shown at 10:15:30.123 matches created_to=10:15:30.123 though it was stored at .123456.
  if (input.created_to) query = query.where('e.created_at', '<', new Date(Date.parse(input.created_to) + 1));
  if (input.status) query = query.where(STATUS_FILTER[input.status]);
  if (input.cursor) {
    const { createdMicros, id } = decodeCursor(input.cursor);
    query = query.where(sql<SqlBool>`(e.created_at, e.id) < (timestamptz 'epoch' + ${createdMicros}::bigint * interval '1 microsecond', ${id}::uuid)`);
  }
  const rows = await query.orderBy('e.created_at', 'desc').orderBy('e.id', 'desc').limit(limit + 1).execute();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit;
  return {
    events: await eventResources(db, page, ATTEMPTS_IN_LIST),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(last.created_micros, last.id) : null,
  };
}
