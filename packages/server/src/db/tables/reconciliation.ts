import type { ColumnType } from 'kysely';

/** Table types of reconciliation (migration 0034-reconciliation); merged into db/schema.ts's Database. */
export interface ReconciliationRunsTable {
  id: string;
  /** adyen, sandbox or pix (reconciliation/processors.ts). */
  processor: string;
  file_sha256: string;
  lines: number;
  matched: number;
  mismatched: number;
  missing_in_colibri: number;
  missing_at_processor: number;
  informational: number;
  period_from: Date | null;
  period_to: Date | null;
  imported_by: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

/** The columns both kinds of line share (reconciliation/lines.ts). */
export interface ReconciliationLineColumns {
  id: string;
  run_id: string;
  line_number: number | null;
  reason: string;
  record_type: string | null;
  psp_reference: string | null;
  merchant_reference: string | null;
  modification_reference: string | null;
  modification_merchant_reference: string | null;
  resource_type: string | null;
  resource_id: string | null;
  currency: string | null;
  reported_amount_minor: bigint | null;
  expected_amount_minor: bigint | null;
  reported_fee_minor: bigint | null;
  expected_fee_minor: bigint | null;
  reported_net_minor: bigint | null;
  detail: string;
  occurred_at: Date | null;
  /** `YYYY-MM-DD`; read it as text (`expected_on::text`). */
  expected_on: ColumnType<string | null, string | null, never>;
  status: ColumnType<string, string | undefined, string>;
  resolved_at: Date | null;
  resolved_by: string | null;
  resolution_note: string | null;
  adjustment_id: string | null;
}

export interface ReconciliationLinesTable extends ReconciliationLineColumns {
  merchant_id: string;
}

export interface BalanceAdjustmentsTable {
  id: string;
  merchant_id: string;
  amount_minor: bigint;
  currency: string;
  reason: string;
  operator: string;
  run_id: string | null;
  line_id: string | null;
  created_at: Date;
}

export interface ReconciliationTables {
  reconciliation_runs: ReconciliationRunsTable;
  reconciliation_lines: ReconciliationLinesTable;
  reconciliation_unattributed_lines: ReconciliationLineColumns;
  balance_adjustments: BalanceAdjustmentsTable;
}
