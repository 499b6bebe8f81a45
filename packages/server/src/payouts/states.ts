import { stateTable } from '../lib/state-machine';

/** The contract's payout statuses. */
export const PAYOUT_STATUSES = ['CREATED', 'PROCESSING', 'PAID', 'REJECTED', 'CANCELED'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/**
 * Every allowed move, as data (docs/payouts.md, "Statuses", draws it). A payout is CREATED when its
 * batch is stored, PROCESSING once the worker hands it to the processor, and ends PAID, REJECTED
 * (the bank or the processor refused it) or CANCELED (the processor withdrew it). One move leaves
 * PAID: the recipient's bank returned the transfer (a closed account found late), which the processor
 * reports after it had paid; the payout is then REJECTED with the code PAYOUT_RETURNED and the merchant
 * gets its money back. REJECTED and CANCELED have no way out. Every status has its own timestamp
 * column (CREATED's is `created_at`, written with the batch).
 */
export const PAYOUT_STATES = stateTable({
  resource: 'payout',
  moves: {
    CREATED: ['PROCESSING'],
    PROCESSING: ['PAID', 'REJECTED', 'CANCELED'],
    PAID: ['REJECTED'],
    REJECTED: [],
    CANCELED: [],
  } satisfies Record<PayoutStatus, readonly PayoutStatus[]>,
  timestamps: {
    PROCESSING: 'processing_at',
    PAID: 'paid_at',
    REJECTED: 'rejected_at',
    CANCELED: 'canceled_at',
  },
});
