import type { ColumnType, Generated } from 'kysely';

/** Table types of the refund domain (migration 0011-refunds); merged into db/schema.ts's Database. */
export interface RefundsTable {
  /** bigserial: int8 columns come back as bigint on both engines. */
  refund_id: Generated<bigint>;
  payment_token: string;
  merchant_id: string;
  amount_minor: bigint;
  currency: string;
  status: string;
  notification_url: string | null;
  destination: unknown;
  processor_id: string | null;
  error_code: string | null;
  error_description: string | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
  completed_at: Date | null;
  failed_at: Date | null;
  /** The Idempotency-Key of the request that created it (unique per merchant). */
  idempotency_key: Generated<string | null>;
}

export interface RefundStatusHistoryTable {
  id: Generated<bigint>;
  refund_id: bigint;
  merchant_id: string;
  status: string;
  at: Date;
}

export interface RefundTables {
  refunds: RefundsTable;
  refund_status_history: RefundStatusHistoryTable;
}
