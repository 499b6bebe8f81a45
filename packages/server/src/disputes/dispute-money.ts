import { balanceDay, type JournalInput } from '../ledger/ledger';
import type { Selectable } from 'kysely';
import type { DisputesTable } from '../db/tables/disputes';

type DisputeRow = Selectable<DisputesTable>;

/**
 * The money of a dispute, as journals (docs/disputes.md, "Money"). A chargeback takes the disputed amount
 * out of what Colibri owes the merchant into `disputes_held` (the reserved part of its balance), and
 * charges the dispute fee; the close empties `disputes_held` again: a won dispute gives the amount back to the merchant, a lost (or
 * accepted) one leaves it with the processor, which took it from Colibri. The fee is kept either way,
 * as acquirers keep theirs. An inquiry holds nothing, so its close moves nothing.
 */

/**
 * Ledger: a chargeback holds `amount` of the merchant's money: out of its balance into the reserved part
 * (balance: a DISPUTE transaction of −amount on the balance and one of +amount reserved).
 * @example holdJournal(dispute, 10000n, now) // merchant_payable +10000, disputes_held −10000
 */
export function holdJournal(dispute: DisputeMoney, amountMinor: bigint, at: Date): JournalInput {
  return {
    ...about(dispute, 'dispute.held', at),
    balance: { type: 'DISPUTE', sourceId: dispute.dispute_id },
    lines: [
      { account: 'merchant_payable', amountMinor, availableOn: balanceDay(at, dispute.currency) },
      { account: 'disputes_held', amountMinor: -amountMinor },
    ],
  };
}

/**
 * Ledger: the dispute fee, charged when a chargeback first holds money (balance: a FEE transaction).
 * @example feeJournal(dispute, 1500n, now) // merchant_payable +1500, fee_revenue −1500
 */
export function feeJournal(dispute: DisputeMoney, feeMinor: bigint, at: Date): JournalInput {
  return {
    ...about(dispute, 'dispute.fee', at),
    balance: { type: 'FEE', sourceId: dispute.dispute_id },
    lines: [
      { account: 'merchant_payable', amountMinor: feeMinor, availableOn: balanceDay(at, dispute.currency), feeMinor },
      { account: 'fee_revenue', amountMinor: -feeMinor },
    ],
  };
}

/**
 * Ledger: the close of a dispute that held money. Won, the merchant has it back (DISPUTE_REVERSAL: out of
 * reserved, into the balance); lost or accepted, the processor keeps it, so what it owes Colibri falls
 * by as much (DISPUTE: out of reserved). Nothing for a dispute that holds nothing.
 * @example closeJournal(dispute, 'WON', now) // disputes_held +10000, merchant_payable −10000
 */
export function closeJournal(dispute: DisputeMoney & Pick<DisputeRow, 'held_minor'>, outcome: 'WON' | 'LOST' | 'ACCEPTED', at: Date): JournalInput | null {
  if (dispute.held_minor === 0n) return null;
  const won = outcome === 'WON';
  return {
    ...about(dispute, won ? 'dispute.won' : 'dispute.lost', at),
    balance: { type: won ? 'DISPUTE_REVERSAL' : 'DISPUTE', sourceId: dispute.dispute_id },
    lines: [
      { account: 'disputes_held', amountMinor: dispute.held_minor },
      won
        ? { account: 'merchant_payable', amountMinor: -dispute.held_minor, availableOn: balanceDay(at, dispute.currency) }
        : { account: 'processor_receivable', amountMinor: -dispute.held_minor },
    ],
  };
}

type DisputeMoney = Pick<DisputeRow, 'merchant_id' | 'currency' | 'dispute_id'>;

function about(dispute: DisputeMoney, kind: string, at: Date) {
  return { merchantId: dispute.merchant_id, kind, currency: dispute.currency, resourceId: dispute.dispute_id, at };
}
