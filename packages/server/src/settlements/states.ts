import { stateTable } from '../lib/state-machine';

/** The contract's settlement statuses (CONTRACTS.md, Balance, settlements and reconciliation). */
export const SETTLEMENT_STATUSES = ['PENDING', 'IN_TRANSIT', 'PAID', 'FAILED'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

/**
 * Every allowed move, as data (docs/balance-and-settlements.md, "Settlements", draws it). A settlement is
 * PENDING when the sweep makes it (its money already out of the merchant's available balance), IN_TRANSIT
 * once its job hands it to the connector that pays settlements, and ends PAID (the bank took the transfer)
 * or FAILED (the bank refused it; its money is available again). A PENDING one fails without being sent when
 * the operator holds the merchant first. Every status has its own timestamp column (PENDING's is
 * `created_at`, written when it is made).
 */
export const SETTLEMENT_STATES = stateTable({
  resource: 'settlement',
  moves: {
    PENDING: ['IN_TRANSIT', 'FAILED'],
    IN_TRANSIT: ['PAID', 'FAILED'],
    PAID: [],
    FAILED: [],
  } satisfies Record<SettlementStatus, readonly SettlementStatus[]>,
  timestamps: {
    IN_TRANSIT: 'in_transit_at',
    PAID: 'paid_at',
    FAILED: 'failed_at',
  },
});
