import type { Selectable } from 'kysely';
import type { Db } from '../db/database';
import { toJsonNumber } from '../lib/money';
import { formatDateTime } from '../lib/time-format';
import { exponentOf } from '../lib/currencies';
import { allowedFrom, assertMove, movedMeanwhile, stampOf } from '../lib/state-machine';
import { SUBSCRIPTION_STATES, type SubscriptionStatus } from './states';
import type { SubscriptionsTable } from '../db/tables/subscriptions';
import { isUuid } from '../lib/identifiers';

export type SubscriptionRow = Selectable<SubscriptionsTable>;

/**
 * A merchant's subscription; another merchant's, or a malformed id, is simply not found.
 * @example const subscription = await findSubscription(db, merchantId, id);
 */
export async function findSubscription(db: Db, merchantId: string, id: string): Promise<SubscriptionRow | undefined> {
  if (!isUuid(id)) return undefined;
  return db.selectFrom('subscriptions').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
}

/**
 * Locks a subscription row for the rest of the transaction. Every writer of a subscription's charges
 * (the charge endpoint, cancel, the scheduler, attempts and settlement) takes this lock first, and
 * only then a charge's, so they are serialised per subscription and never deadlock. Workers pass
 * `skipLocked`: a subscription another worker holds is that worker's to finish.
 * @example const subscription = await lockSubscription(trx, id, { skipLocked: true });
 */
export async function lockSubscription(trx: Db, id: string, options: { merchantId?: string; skipLocked?: boolean } = {}): Promise<SubscriptionRow | undefined> {
  if (!isUuid(id)) return undefined;
  let query = trx.selectFrom('subscriptions').selectAll().where('id', '=', id);
  if (options.merchantId !== undefined) query = query.where('merchant_id', '=', options.merchantId);
  const locked = query.forUpdate();
  return (options.skipLocked ? locked.skipLocked() : locked).executeTakeFirst();
}

/**
 * Moves a subscription to another status in the caller's transaction (which holds its lock), stamping
 * the status's time; a canceled subscription has no next due date. A move the state table
 * (subscriptions/states.ts) does not allow throws IllegalMoveError before anything is written.
 * @example await changeSubscriptionStatus(trx, subscription, 'PAST_DUE', now);
 */
export async function changeSubscriptionStatus(trx: Db, subscription: SubscriptionRow, to: SubscriptionStatus, now: Date): Promise<SubscriptionRow> {
  assertMove(SUBSCRIPTION_STATES, subscription.status, to);
  const updated = await trx
    .updateTable('subscriptions')
    // PAST_DUE is restamped on each entry: its time is the start of the delinquency now open, not the first one.
    .set({ status: to, updated_at: now, ...stampOf(SUBSCRIPTION_STATES, to, now), ...(to === 'CANCELED' ? { next_due_date: null } : {}) })
    .where('id', '=', subscription.id)
    .where('status', 'in', allowedFrom(SUBSCRIPTION_STATES, to))
    .returningAll()
    .executeTakeFirst();
  if (!updated) throw movedMeanwhile(SUBSCRIPTION_STATES, subscription.status, to);
  return updated;
}

/**
 * The subscription as the API shows it (docs/subscriptions.md).
 * @example reply.send({ ...presentSubscription(row), refresh_token })
 */
export function presentSubscription(subscription: SubscriptionRow) {
  return {
    subscription_id: subscription.id,
    status: subscription.status,
    public_person_id: subscription.person_id,
    public_card_id: subscription.card_id,
    amount_type: subscription.amount_type,
    amount: subscription.amount_minor === null || subscription.currency === null ? null : toJsonNumber(subscription.amount_minor, exponentOf(subscription.currency)),
    asset: subscription.currency,
    interval: subscription.billing_interval,
    first_due_date: subscription.first_due_date,
    force_work_day: subscription.force_work_day,
    reference_id: subscription.reference_id,
    notification_url: subscription.notification_url,
    next_due_date: subscription.status === 'CANCELED' ? null : subscription.next_due_date,
    created_at: formatDateTime(subscription.created_at),
    canceled_at: subscription.canceled_at ? formatDateTime(subscription.canceled_at) : null,
  };
}
