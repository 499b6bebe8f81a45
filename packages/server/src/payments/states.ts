import { stateTable } from '../lib/state-machine';

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
 * Every allowed move, as data (docs/payments.md, "Statuses and transitions", draws it). PROCESSING is
 * where a payment waits for the processor: after sendPayment, during a capture of a pre-authorisation
 * and during its cancelation, and which of them is in flight is the payment's one REQUESTED operation
 * (payments/operations.ts); a code payment (PIX, boleto, …) waits CREATED for its payer. Every
 * `changeStatus` checks its move here (lib/state-machine.ts) and stamps the status's column.
 */
export const PAYMENT_STATES = stateTable({
  resource: 'payment',
  moves: {
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
  } satisfies Record<PaymentStatus, readonly PaymentStatus[]>,
  timestamps: {
    PRE_AUTHORIZED: 'pre_authorized_at',
    PAID: 'paid_at',
    CANCELED: 'canceled_at',
    EXPIRED: 'canceled_at',
    DECLINED: 'failed_at',
    ERROR: 'failed_at',
    REFUNDED: 'refunded_at',
  },
});

/**
 * Statuses in which a payment moved no money: the fees priced at its creation were never charged, so
 * a move into one of them drops them (the row's totals and its fee lines, with the move).
 */
export const UNCHARGED_STATUSES: readonly PaymentStatus[] = ['DECLINED', 'ERROR'];

/** A pre-authorisation not captured within this time is canceled (spec, Limits). */
export const PRE_AUTHORIZATION_TTL_MS = 5 * 24 * 60 * 60 * 1000;

/** The processor operations on a card payment, each a record of its own (payments/operations.ts). */
export const OPERATION_KINDS = ['authorize', 'capture', 'cancel'] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

export const OPERATION_STATUSES = ['REQUESTED', 'APPROVED', 'DECLINED', 'FAILED'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

/**
 * An operation's moves (docs/architecture.md, "Money in flight"). REQUESTED from the moment it is
 * asked for (its job is enqueued in the same transaction) until the processor's answer is applied:
 * whether an attempt reached the processor is the job's `outcome_unknown`, and an answer that never
 * comes is reported at /admin/stuck-operations. APPROVED and DECLINED are the processor's own answers;
 * FAILED is its error, or an operation that never reached it by its deadline. Each is final: a job
 * or a notification that arrives after it changes nothing.
 */
export const OPERATION_STATES = stateTable({
  resource: 'payment operation',
  moves: {
    REQUESTED: ['APPROVED', 'DECLINED', 'FAILED'],
    APPROVED: [],
    DECLINED: [],
    FAILED: [],
  } satisfies Record<OperationStatus, readonly OperationStatus[]>,
  timestamps: { APPROVED: 'approved_at', DECLINED: 'declined_at', FAILED: 'failed_at' },
});

/**
 * Where each operation's answer leaves its payment, as data: the one table applyOutcomes reads
 * (payments/apply-outcome.ts). An authorisation of a payment that captures later (`delay_capture`) is
 * read as `pre_authorize`. A capture or cancel that the processor refused, or that never reached it,
 * leaves the pre-authorisation standing, with its first authorisation time (the TTL does not restart).
 */
export const OUTCOME_MOVES: Readonly<Record<OperationKind | 'pre_authorize', Readonly<Record<Exclude<OperationStatus, 'REQUESTED'>, PaymentStatus>>>> = {
  authorize: { APPROVED: 'PAID', DECLINED: 'DECLINED', FAILED: 'ERROR' },
  pre_authorize: { APPROVED: 'PRE_AUTHORIZED', DECLINED: 'DECLINED', FAILED: 'ERROR' },
  capture: { APPROVED: 'PAID', DECLINED: 'PRE_AUTHORIZED', FAILED: 'PRE_AUTHORIZED' },
  cancel: { APPROVED: 'CANCELED', DECLINED: 'PRE_AUTHORIZED', FAILED: 'PRE_AUTHORIZED' },
};
