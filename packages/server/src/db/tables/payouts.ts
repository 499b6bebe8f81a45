import type { ColumnType, Generated } from 'kysely';

/** Table types of the payout domain (migration 0005-payouts); merged into db/schema.ts's Database. */

/** The statuses of payouts/states.ts (PayoutStatus), which holds their moves; the column's check constraint holds the same list. */
type PayoutStatus = 'CREATED' | 'PROCESSING' | 'PAID' | 'REJECTED' | 'CANCELED';

export interface PayoutsTable {
  tx_id: string;
  merchant_id: string;
  /** Every item of one `POST /payoutTransaction` shares a batch id; `batch_index` is its position. */
  batch_id: string;
  batch_index: number;
  contract_id: string;
  reference_id: string;
  country: string;
  method: string;
  original_amount_minor: bigint;
  original_currency: string;
  /** The amount in the payment currency (`currency`), after FX. */
  amount_minor: bigint;
  currency: string;
  /** The FX rate applied (payment currency per original unit) and its date; null without FX. */
  fx_rate: string | null;
  fx_rate_date: string | null;
  merchant_fees_minor: bigint;
  /** amount + merchant fees: what the merchant's balance is charged. */
  merchant_amount_minor: bigint;
  customer_fees_minor: bigint;
  /** amount − customer fees: what reaches the recipient's account. */
  customer_amount_minor: bigint;
  /** Each applied fee: `[{type, payer, amount_minor}]`, amounts as decimal strings of minor units. */
  fees: unknown;
  bank_code: string | null;
  account_type: string;
  account_number: string;
  tax_id_type: string;
  tax_id: string;
  email: string | null;
  full_name: string | null;
  notification_url: string;
  status: PayoutStatus;
  processor_id: string | null;
  error_code: string | null;
  error_description: string | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
  processing_at: Date | null;
  paid_at: Date | null;
  rejected_at: Date | null;
  canceled_at: Date | null;
}

export interface PayoutStatusHistoryTable {
  id: Generated<string>;
  tx_id: string;
  merchant_id: string;
  status: PayoutStatus;
  previous_status: PayoutStatus | null;
  error_code: string | null;
  at: Date;
}

/** A payout's hand-over to its connector (migration 0037-payout-dispatches, payouts/payout-dispatch.ts). */
export interface PayoutDispatchesTable {
  tx_id: string;
  merchant_id: string;
  connector: string;
  reference: string;
  status: 'SENDING' | 'ACCEPTED' | 'SETTLED';
  provider_id: string | null;
  checks: ColumnType<number, number | undefined, number>;
  next_check_at: Date | null;
  sending_at: Date;
  accepted_at: Date | null;
  settled_at: Date | null;
  returned_at: Date | null;
}

export interface PayoutTables {
  payouts: PayoutsTable;
  payout_status_history: PayoutStatusHistoryTable;
  payout_dispatches: PayoutDispatchesTable;
}
