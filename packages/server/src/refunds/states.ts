import { stateTable } from '../lib/state-machine';

export const REFUND_STATUSES = ['REQUESTED', 'PROCESSING', 'COMPLETED', 'FAILED'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/**
 * Every allowed refund move, as data (docs/refunds.md, "Statuses", draws it): REQUESTED while the
 * amount is reserved and the processor asked, PROCESSING once it accepted (or timed out), then
 * COMPLETED or FAILED; a submission the processor refuses at once fails straight from REQUESTED.
 */
export const REFUND_STATES = stateTable({
  resource: 'refund',
  moves: {
    REQUESTED: ['PROCESSING', 'FAILED'],
    PROCESSING: ['COMPLETED', 'FAILED'],
    COMPLETED: [],
    FAILED: [],
  } satisfies Record<RefundStatus, readonly RefundStatus[]>,
  timestamps: { COMPLETED: 'completed_at', FAILED: 'failed_at' },
});

/** Statuses that hold part of the payment's refundable amount. */
export const PENDING_REFUND_STATUSES: readonly RefundStatus[] = ['REQUESTED', 'PROCESSING'];
