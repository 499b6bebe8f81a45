import type { ColumnType, Generated } from 'kysely';

/** Table types of the payment domain (migration 0004-payments); merged into db/schema.ts's Database. */
export interface PaymentsTable {
  payment_token: Generated<string>;
  merchant_id: string;
  contract_id: string;
  reference_id: string;
  method: string;
  status: string;
  person_id: string | null;
  card_id: string | null;
  original_amount_minor: bigint;
  original_currency: string;
  amount_minor: bigint;
  currency: string;
  customer_fees_minor: bigint;
  merchant_fees_minor: bigint;
  fee_rules: unknown;
  fx_rate: string | null;
  fx_rate_date: string | null;
  installments: number;
  delay_capture: boolean;
  soft_descriptor: string | null;
  extra_data: unknown;
  ip_address: string | null;
  /** The ISO country of ip_address when the payment was created (lib/ip-country.ts); null for none. */
  ip_country: string | null;
  notification_url: string | null;
  authentication: unknown;
  authorized_minor: Generated<bigint>;
  captured_minor: Generated<bigint>;
  refunded_minor: Generated<bigint>;
  pending_capture_minor: bigint | null;
  processor_id: string | null;
  error_code: string | null;
  error_description: string | null;
  expires_at: Date | null;
  end_to_end_id: string | null;
  subscription_id: string | null;
  checkout_id: string | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
  pre_authorized_at: Date | null;
  paid_at: Date | null;
  canceled_at: Date | null;
  failed_at: Date | null;
  /** When the payment became REFUNDED (migration 0026): every terminal status has its time. */
  refunded_at: Date | null;
  /** The Idempotency-Key of the request that created it (unique per merchant): a retry after a crash finds it. */
  idempotency_key: Generated<string | null>;
  /**
   * Stored generated columns (migration 0047), each set only while the payment is in one state and
   * indexed where not null, so a status change elsewhere leaves every index alone: pre_authorized_at
   * while PRE_AUTHORIZED; a checkout payment's expires_at while CREATED; a boleto checkout payment's
   * checkout_id while PROCESSING (compensating).
   */
  open_pre_authorized_at: ColumnType<Date | null, never, never>;
  waiting_checkout_expires_at: ColumnType<Date | null, never, never>;
  compensating_checkout_id: ColumnType<string | null, never, never>;
  /** Its status moves, oldest first (migration 0048): written with the row by every status change. */
  status_history: ColumnType<StatusHistoryLine[], string | undefined, string>;
  /** Its fee lines, in the payment's currency (migration 0048): written with the row whenever its fees change. */
  fee_lines: ColumnType<FeeLine[], string | undefined, string>;
}

/** One line of a payment's status history (payments.status_history): the status and when, as an ISO time. */
export interface StatusHistoryLine {
  status: string;
  at: string;
}

/** One fee line of a payment (payments.fee_lines): what it is, who pays it, and how much, a decimal string of minor units. */
export interface FeeLine {
  fee_type: string;
  payer: string;
  amount_minor: string;
}

/** A read-only view over payments.fee_lines (migration 0048), one row per line. */
export interface PaymentFeesTable {
  position: ColumnType<string, never, never>;
  payment_token: string;
  merchant_id: string;
  fee_type: string;
  payer: string;
  amount_minor: bigint;
  currency: string;
}

/** A read-only view over payments.status_history (migration 0048), one row per line. */
export interface PaymentStatusHistoryTable {
  position: ColumnType<string, never, never>;
  payment_token: string;
  merchant_id: string;
  status: string;
  at: Date;
}

/**
 * One processor operation on a card payment (migration 0029, payments/operations.ts): authorise, capture
 * or cancel, with its own status (payments/states.ts OPERATION_STATES) and a time per final status.
 */
export interface PaymentOperationsTable {
  id: string;
  payment_token: string;
  merchant_id: string;
  kind: string;
  status: Generated<string>;
  amount_minor: bigint;
  /** Colibri's reference for the processor: its idempotency key there, and how its records are found. */
  reference: string;
  /** A cancel's cause: REQUESTED by the merchant, or TTL (the 5-day sweep). */
  reason: string | null;
  processor_id: string | null;
  result_code: string | null;
  result_description: string | null;
  /** The Idempotency-Key of the request that asked for it (unique per merchant and kind). */
  idempotency_key: string | null;
  requested_at: Date;
  approved_at: Date | null;
  declined_at: Date | null;
  failed_at: Date | null;
}

export interface PaymentTables {
  payments: PaymentsTable;
  payment_operations: PaymentOperationsTable;
  payment_fees: PaymentFeesTable;
  payment_status_history: PaymentStatusHistoryTable;
}
