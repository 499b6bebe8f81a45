import { ApiError, type ErrorKey } from '../http/errors';

/** The contract's payment statuses. */
export const PAYMENT_STATUSES = [
  'CREATED',
  'PROCESSING',
  'PRE_AUTHORIZED',
  'PAID',
  'DECLINED',
  'CANCELED',
  'EXPIRED',
  'ERROR',
  'REFUNDED',
  'PARTIALLY_REFUNDED',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * Every allowed move, as data (docs/payments.md draws it). PROCESSING is where a payment waits for the
 * processor: after sendPayment, during a capture of a pre-authorisation and during its cancelation.
 * A move not listed here is refused by `assertTransition`, which names both states.
 */
export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  CREATED: ['PROCESSING', 'CANCELED', 'EXPIRED'],
  PROCESSING: ['PAID', 'PRE_AUTHORIZED', 'DECLINED', 'ERROR', 'CANCELED', 'EXPIRED'],
  PRE_AUTHORIZED: ['PROCESSING'],
  PAID: ['PARTIALLY_REFUNDED', 'REFUNDED'],
  PARTIALLY_REFUNDED: ['PARTIALLY_REFUNDED', 'REFUNDED'],
  DECLINED: [],
  CANCELED: [],
  EXPIRED: [],
  ERROR: [],
  REFUNDED: [],
};

export function canTransition(from: string, to: PaymentStatus): boolean {
  return (PAYMENT_TRANSITIONS[from as PaymentStatus] ?? []).includes(to);
}

/**
 * Refuses an illegal move with a client error naming the current and the expected states.
 * @example assertTransition(payment.status, 'PROCESSING', 'NOT_PRE_AUTHORIZED', ['PRE_AUTHORIZED'])
 */
export function assertTransition(from: string, to: PaymentStatus, key: ErrorKey, expected: readonly PaymentStatus[]): void {
  if (!expected.includes(from as PaymentStatus) || !canTransition(from, to)) {
    throw new ApiError(key, undefined, { message: `Payment is ${from}; this operation needs ${expected.join(' or ')}.` });
  }
}

/** A pre-authorisation not captured within this time is canceled (spec, Limits). */
export const PRE_AUTHORIZATION_TTL_MS = 5 * 24 * 60 * 60 * 1000;
