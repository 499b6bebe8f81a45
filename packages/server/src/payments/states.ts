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
 * and during its cancelation; a code payment (PIX, boleto, …) waits CREATED for its payer. Every
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
