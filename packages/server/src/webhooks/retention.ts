import { sql } from 'kysely';
import type { AppContext } from '../context';
import type { Db } from '../db/database';

/** Events deleted per statement at most: each statement is short, and holds its rows' locks briefly. */
const PURGE_BATCH = 1_000;
/** Statements per run at most: a run that finds a backlog (a first run, a lowered setting) spreads it over runs. */
const MAX_BATCHES_PER_RUN = 50;

/**
 * Deletes the events created before `olderThan` whose callbacks are all settled (delivered or given up),
 * with their deliveries and attempts. An event with a delivery still pending (being retried, or retried
 * by hand) stays, whatever its age. Runs in statements of PURGE_BATCH events, each atomic, and stops
 * after MAX_BATCHES_PER_RUN; answers how many events it deleted.
 *
 * Events are walked per merchant through `events_merchant_idx` (merchant_id, created_at), so a run reads
 * only the old rows, with no index of its own to keep on the insert path. Should a retry make a
 * delivery pending while its event is being deleted, the delivery's delete skips it on recheck and the
 * event's foreign key then fails the whole statement: the batch rolls back, and the next run leaves that
 * event alone.
 * @example const deleted = await purgeOldEvents(db, new Date(Date.now() - 90 * 86_400_000));
 */
export async function purgeOldEvents(db: Db, olderThan: Date): Promise<number> {
  let deleted = 0;
  for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
    const { rows } = await sql<{ n: string }>`
      with old as (
        select e.merchant_id, e.id
        from merchants as m
        cross join lateral (
          select e.merchant_id, e.id from events as e
          where e.merchant_id = m.id and e.created_at < ${olderThan}
            and not exists (select 1 from webhook_deliveries as d where d.merchant_id = e.merchant_id and d.event_id = e.id and d.status = 'PENDING')
          order by e.created_at
          limit ${PURGE_BATCH}
        ) as e
        limit ${PURGE_BATCH}
      ),
      attempts as (
        delete from webhook_attempts as a using old
        where a.merchant_id = old.merchant_id and a.event_id = old.id
      ),
      deliveries as (
        delete from webhook_deliveries as d using old
        where d.merchant_id = old.merchant_id and d.event_id = old.id and d.status <> 'PENDING'
      ),
      gone as (
        delete from events as e using old
        where e.merchant_id = old.merchant_id and e.id = old.id
        returning 1
      )
      select count(*)::text as n from gone`.execute(db);
    const n = Number(rows[0]?.n ?? 0);
    deleted += n;
    if (n < PURGE_BATCH) break;
  }
  return deleted;
}

/** The periodic task: purges events past the configured retention (COLIBRI_EVENT_RETENTION_DAYS; 0 keeps them all). */
export async function purgeEventsPastRetention(ctx: AppContext): Promise<number> {
  const days = ctx.config.callbacks.retentionDays;
  if (days === 0) return 0;
  return purgeOldEvents(ctx.db, new Date(Date.now() - days * 86_400_000));
}
