import type { JournalInput } from '../ledger/ledger';
import type { Selectable } from 'kysely';
import type { DisputesTable } from '../db/tables/disputes';

type DisputeRow = Selectable<DisputesTable>;

/**
 * The money of a dispute, as journals (docs/disputes.md, "Money"). A chargeback takes the disputed amount
 * out of what Colibri owes the merchant into `disputes_held`, and charges the dispute fee; the close
 * empties `disputes_held` again: a won dispute gives the amount back to the merchant, a lost (or
 * accepted) one leaves it with the processor, which took it from Colibri. The fee is kept either way,
 * as acquirers keep theirs. An inquiry holds nothing, so its close moves nothing.
 */

/**
 * Ledger: a chargeback holds `amount` of the merchant's money and charges `fee`.
 * @example holdJournal(dispute, 10000n, 1500n, now) // merchant_payable +11500, disputes_held −10000, fee_revenue −1500
 */
export function holdJournal(dispute: Pick<DisputeRow, 'merchant_id' | 'currency' | 'dispute_id'>, amountMinor: bigint, feeMinor: bigint, at: Date): JournalInput {
  return {
    merchantId: dispute.merchant_id,
    kind: 'dispute.held',
    currency: dispute.currency,
    resourceId: dispute.dispute_id,
    at,
    lines: [
      { account: 'merchant_payable', amountMinor: amountMinor + feeMinor },
      { account: 'disputes_held', amountMinor: -amountMinor },
      { account: 'fee_revenue', amountMinor: -feeMinor },
    ],
  };
}

/**
 * Ledger: the close of a dispute that held money. Won, the merchant has it back; lost or accepted, the
 * processor keeps it (what it owes Colibri falls by as much). Nothing for a dispute that holds nothing.
 * @example closeJournal(dispute, 'WON', now) // disputes_held +10000, merchant_payable −10000
 */
export function closeJournal(dispute: Pick<DisputeRow, 'merchant_id' | 'currency' | 'dispute_id' | 'held_minor'>, outcome: 'WON' | 'LOST' | 'ACCEPTED', at: Date): JournalInput | null {
  if (dispute.held_minor === 0n) return null;
  return {
    merchantId: dispute.merchant_id,
    kind: outcome === 'WON' ? 'dispute.won' : 'dispute.lost',
    currency: dispute.currency,
    resourceId: dispute.dispute_id,
    at,
    lines: [
      { account: 'disputes_held', amountMinor: dispute.held_minor },
      { account: outcome === 'WON' ? 'merchant_payable' : 'processor_receivable', amountMinor: -dispute.held_minor },
    ],
  };
}
