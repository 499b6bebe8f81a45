import { ApiError } from '../http/errors';

/** The contract's payout statuses. */
export const PAYOUT_STATUSES = ['CREATED', 'PROCESSING', 'PAID', 'REJECTED', 'CANCELED'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/**
 * Every allowed move, as data (docs/payouts.md, "Statuses", draws it). A payout is CREATED when its
 * batch is stored, PROCESSING once the worker hands it to the processor, and ends PAID, REJECTED
 * (the bank or the processor refused it) or CANCELED (the processor withdrew it). Terminal statuses
 * have no way out: money that reached a bank account is not "un-paid" by a status change.
 */
export const PAYOUT_TRANSITIONS: Readonly<Record<PayoutStatus, readonly PayoutStatus[]>> = {
  CREATED: ['PROCESSING'],
  PROCESSING: ['PAID', 'REJECTED', 'CANCELED'],
  PAID: [],
  REJECTED: [],
  CANCELED: [],
};

/** The timestamp column each status stamps, so every status, terminal ones included, has its own time. */
export const PAYOUT_STATUS_TIMESTAMPS = {
  CREATED: 'created_at',
  PROCESSING: 'processing_at',
  PAID: 'paid_at',
  REJECTED: 'rejected_at',
  CANCELED: 'canceled_at',
} as const satisfies Record<PayoutStatus, string>;

/**
 * Whether a string is a payout status.
 * @example isPayoutStatus('PAID') // true
 */
export function isPayoutStatus(value: string): value is PayoutStatus {
  return (PAYOUT_STATUSES as readonly string[]).includes(value);
}

/**
 * Whether a payout may move from one status to another.
 * @example canMovePayout('PROCESSING', 'PAID') // true
 * @example canMovePayout('PAID', 'REJECTED')    // false
 */
export function canMovePayout(from: string, to: PayoutStatus): boolean {
  return isPayoutStatus(from) && PAYOUT_TRANSITIONS[from].includes(to);
}

/** The statuses a payout must be in to move to `to`. @example statusesBefore('PAID') // ['PROCESSING'] */
export function statusesBefore(to: PayoutStatus): PayoutStatus[] {
  return PAYOUT_STATUSES.filter((from) => PAYOUT_TRANSITIONS[from].includes(to));
}

/**
 * Refuses a move the table does not allow, naming the current status and the ones the move needs.
 * @example
 * assertPayoutMove('PAID', 'REJECTED');
 * // throws ApiError PAYOUT_STATUS_CONFLICT: "status: the payout is PAID; it can become REJECTED only from PROCESSING."
 */
export function assertPayoutMove(from: string, to: PayoutStatus): void {
  if (canMovePayout(from, to)) return;
  const expected = statusesBefore(to);
  const why = expected.length === 0 ? `no payout becomes ${to} by a move` : `it can become ${to} only from ${expected.join(' or ')}`;
  throw new ApiError('PAYOUT_STATUS_CONFLICT', `status: the payout is ${from}; ${why}.`);
}
