import { ApiError } from '../http/errors';
import { stateTable } from '../lib/state-machine';

/** The contract's subscription statuses, billing intervals and charge statuses. */
export const SUBSCRIPTION_STATUSES = ['ACTIVE', 'PAST_DUE', 'CANCELED'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const SUBSCRIPTION_INTERVALS = ['WEEKLY', 'MONTHLY', 'QUARTERLY', 'YEARLY'] as const;
export type SubscriptionInterval = (typeof SUBSCRIPTION_INTERVALS)[number];

export const CHARGE_STATUSES = ['PENDING', 'PAID', 'FAILED', 'CANCELED'] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

/**
 * Every allowed subscription move, as data (docs/subscriptions.md draws it). A subscription whose
 * charge failed after every retry is PAST_DUE; it keeps its schedule, and a charge paid later brings
 * it back to ACTIVE. CANCELED is final.
 */
export const SUBSCRIPTION_STATES = stateTable({
  resource: 'subscription',
  moves: {
    ACTIVE: ['PAST_DUE', 'CANCELED'],
    PAST_DUE: ['ACTIVE', 'CANCELED'],
    CANCELED: [],
  } satisfies Record<SubscriptionStatus, readonly SubscriptionStatus[]>,
  timestamps: { PAST_DUE: 'past_due_at', CANCELED: 'canceled_at' },
});

/**
 * Every allowed charge move. A charge stays PENDING while it waits for its due date, while an attempt
 * is with the processor and between retries; PAID, FAILED (every retry declined) and CANCELED (its
 * subscription was canceled before it was paid) are final.
 */
export const CHARGE_STATES = stateTable({
  resource: 'subscription charge',
  moves: {
    PENDING: ['PAID', 'FAILED', 'CANCELED'],
    PAID: [],
    FAILED: [],
    CANCELED: [],
  } satisfies Record<ChargeStatus, readonly ChargeStatus[]>,
  timestamps: { PAID: 'paid_at', FAILED: 'failed_at', CANCELED: 'canceled_at' },
});

/**
 * Refuses an operation the subscription's status does not allow (charging or canceling a CANCELED
 * one), with the subscription's own code, naming the current status and the ones the operation needs.
 * @example assertSubscriptionStatus(subscription.status, ['ACTIVE', 'PAST_DUE'], 'charge')
 */
export function assertSubscriptionStatus(current: SubscriptionStatus, expected: readonly SubscriptionStatus[], operation: string): void {
  if (!expected.includes(current)) {
    throw new ApiError('SUBSCRIPTION_STATUS_CONFLICT', `status: the subscription is ${current}; to ${operation} it must be ${expected.join(' or ')}.`, {
      message: `Subscription is ${current}; this operation needs ${expected.join(' or ')}.`,
    });
  }
}
