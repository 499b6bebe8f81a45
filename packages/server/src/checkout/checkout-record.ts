import type { Selectable } from 'kysely';
import type { Db } from '../db/database';
import { recordEvent } from '../events/outbox';
import { toJsonNumber } from '../lib/money';
import { assertMove, stampOf } from '../lib/state-machine';
import { formatDateTime } from '../lib/time-format';
import { exponentOf } from '../lib/currencies';
import type { CheckoutSessionsTable } from '../db/tables/checkout';
import { CHECKOUT_STATES, type CheckoutStatus } from './states';
import { isUuid } from '../lib/identifiers';

export type CheckoutRow = Selectable<CheckoutSessionsTable>;

/**
 * Loads a session and locks its row for the rest of the transaction: attempts, payer payments, the
 * payment.changed handler that applies an outcome and the sweep of what time changes all go through
 * here, so they are serialised per session (readers take no lock: findCheckout). With a merchant id, another merchant's session is not found; the public page passes none
 * (its checkout id is the capability). A malformed id is simply not found.
 * @example const session = await lockCheckout(trx, checkoutId, merchantId);
 */
export async function lockCheckout(trx: Db, checkoutId: string, merchantId?: string): Promise<CheckoutRow | undefined> {
  if (!isUuid(checkoutId)) return undefined;
  let query = trx.selectFrom('checkout_sessions').selectAll().where('checkout_id', '=', checkoutId);
  if (merchantId !== undefined) query = query.where('merchant_id', '=', merchantId);
  return query.forUpdate().executeTakeFirst();
}

/** Reads a session without locking. @example const session = await findCheckout(db, checkoutId); */
export async function findCheckout(db: Db, checkoutId: string, merchantId?: string): Promise<CheckoutRow | undefined> {
  if (!isUuid(checkoutId)) return undefined;
  let query = db.selectFrom('checkout_sessions').selectAll().where('checkout_id', '=', checkoutId);
  if (merchantId !== undefined) query = query.where('merchant_id', '=', merchantId);
  return query.executeTakeFirst();
}

/**
 * Writes a session's new state in the caller's transaction, which holds its lock (lockCheckout). When
 * the status changes, the move is checked against the state table (checkout/states.ts; a refused move
 * throws IllegalMoveError before anything is written), the status's timestamp is stamped, and a
 * `checkout.status_changed` event is recorded for the merchant's notificationUrl and
 * checkoutNotificationUrl, together with the change.
 * @example await updateCheckout(trx, session, now, { status: 'PAID', end_reason: 'PAID' });
 */
export async function updateCheckout(
  trx: Db,
  session: CheckoutRow,
  at: Date,
  patch: Partial<Omit<CheckoutRow, 'checkout_id' | 'created_at' | 'merchant_id' | 'payer'>>,
): Promise<CheckoutRow> {
  const status = (patch.status ?? session.status) as CheckoutStatus;
  const changed = status !== session.status;
  if (changed) assertMove(CHECKOUT_STATES, session.status, status);
  const updated = await trx
    .updateTable('checkout_sessions')
    .set({ ...patch, updated_at: at, ...(changed ? stampOf(CHECKOUT_STATES, status, at, session) : {}) })
    .where('checkout_id', '=', session.checkout_id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (changed) {
    await recordEvent(trx, {
      merchantId: session.merchant_id,
      type: 'checkout.status_changed',
      resourceType: 'checkout',
      resourceId: session.checkout_id,
      data: checkoutEventData(updated),
      notificationUrls: [session.notification_url, session.checkout_notification_url],
    });
  }
  return updated;
}

/** The callback payload of a session (docs/checkout.md, Callbacks). */
export function checkoutEventData(session: CheckoutRow): Record<string, unknown> {
  return {
    checkout_id: session.checkout_id,
    reference_id: session.reference_id,
    checkout_reference_id: session.checkout_reference_id,
    status: session.status,
    mode: session.mode,
    methods: session.methods,
    amount: toJsonNumber(session.original_amount_minor, exponentOf(session.original_currency)),
    asset: session.original_currency,
    payment_token: session.current_payment_token,
    end_reason: session.end_reason,
    expires_at: formatDateTime(session.expires_at),
  };
}
