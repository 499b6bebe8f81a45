import { stateTable } from '../lib/state-machine';
import { DISPUTE_STAGES, type DisputeStage } from '../connectors/dispute-notices';

export { DISPUTE_STAGES, DISPUTE_REASON_CATEGORIES, DISPUTE_PROCESSORS } from '../connectors/dispute-notices';
export type { DisputeStage, DisputeReasonCategory, DisputeProcessor } from '../connectors/dispute-notices';

/** The contract's dispute statuses (CONTRACTS.md, Disputes). */
export const DISPUTE_STATUSES = ['NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON', 'LOST', 'ACCEPTED'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/**
 * Every allowed dispute move, as data (docs/disputes.md, "Statuses", draws it):
 * - NEEDS_RESPONSE: the merchant may add evidence until it submits (UNDER_REVIEW) or accepts (ACCEPTED);
 *   the deadline passing makes it LOST; the processor may decide it first (WON: the issuer withdrew it,
 *   LOST: it ruled without a defence).
 * - UNDER_REVIEW: the processor rules (WON or LOST), or the issuer takes it to its next stage (an inquiry
 *   becomes a chargeback, a chargeback goes to pre-arbitration), which asks for a response again.
 * - WON, LOST and ACCEPTED are final: a later round on the same payment (a second chargeback after a won
 *   one) is a dispute of its own.
 */
export const DISPUTE_STATES = stateTable({
  resource: 'dispute',
  moves: {
    NEEDS_RESPONSE: ['UNDER_REVIEW', 'ACCEPTED', 'LOST', 'WON'],
    UNDER_REVIEW: ['WON', 'LOST', 'NEEDS_RESPONSE'],
    WON: [],
    LOST: [],
    ACCEPTED: [],
  } satisfies Record<DisputeStatus, readonly DisputeStatus[]>,
  timestamps: { UNDER_REVIEW: 'submitted_at', WON: 'won_at', LOST: 'lost_at', ACCEPTED: 'accepted_at' },
});

/** Statuses in which a dispute is open: the payment's details flag it, its amount cannot be refunded. */
export const OPEN_DISPUTE_STATUSES: readonly DisputeStatus[] = ['NEEDS_RESPONSE', 'UNDER_REVIEW'];

/** Whether a stage takes the disputed money from the merchant. @example holdsMoney('INQUIRY') // false */
export function holdsMoney(stage: DisputeStage): boolean {
  return stage !== 'INQUIRY';
}

/** The order of stages: a dispute only moves forward. @example stageRank('CHARGEBACK') // 1 */
export function stageRank(stage: string): number {
  return (DISPUTE_STAGES as readonly string[]).indexOf(stage);
}
