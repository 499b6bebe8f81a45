import type { ColumnType } from 'kysely';

/** Table types of merchant balances (migration 0032-balance); merged into db/schema.ts's Database. */
export interface BalanceTransactionsTable {
  id: string;
  journal_id: string;
  merchant_id: string;
  /** One of ledger/ledger.ts BALANCE_TYPES. */
  type: string;
  source_id: string;
  currency: string;
  /** Gross: net plus fee. */
  amount_minor: bigint;
  fee_minor: bigint;
  net_minor: bigint;
  /** BALANCE (merchant_payable) or RESERVED (reserve_held, disputes_held). */
  bucket: string;
  /** `YYYY-MM-DD`; read it as text (`available_on::text`): the drivers parse a date column into a local-time Date. */
  available_on: ColumnType<string | null, string | null, never>;
  created_at: Date;
}

export interface BalanceTables {
  balance_transactions: BalanceTransactionsTable;
}
