import type { ColumnType } from 'kysely';

/** Table types of disputes (migration 0031-disputes); merged into db/schema.ts's Database. */
export interface DisputesTable {
  dispute_id: string;
  merchant_id: string;
  payment_token: string;
  /** The payment's reference_id (the merchant's order), which never changes. */
  reference_id: string;
  /** One of disputes/states.ts DISPUTE_PROCESSORS: who reported it. */
  processor: string;
  /** The reporter's own id of the dispute, unique per processor and merchant. */
  processor_reference: string;
  amount_minor: bigint;
  currency: string;
  /** The dispute fee charged to the merchant when money was first held (fee plan). */
  fee_minor: bigint;
  /** What the dispute holds now, out of what Colibri owes the merchant: 0 for an inquiry and once closed. */
  held_minor: bigint;
  reason_code: string;
  reason_category: string;
  reason_description: string | null;
  stage: string;
  /** A status of disputes/states.ts. */
  status: string;
  evidence_due_by: Date | null;
  /** The evidence's text fields (disputes/evidence.ts). */
  evidence: ColumnType<Record<string, string>, string | undefined, string>;
  /** The refund a MED devolução represents (its money moved by the dispute's journals). */
  refund_id: bigint | null;
  notification_url: string | null;
  /** When the 48-hour warning was recorded. */
  warned_at: Date | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
  submitted_at: Date | null;
  won_at: Date | null;
  lost_at: Date | null;
  accepted_at: Date | null;
}

/** A processor's message about a dispute, translated (connectors/dispute-notices.ts). */
export interface DisputeNoticesTable {
  id: string;
  merchant_id: string;
  processor: string;
  /** The provider's own key of the message (Adyen: pspReference, eventCode, success): unique per processor and merchant. */
  notice_key: string;
  processor_reference: string;
  payment_token: string;
  kind: string;
  stage: string;
  amount_minor: bigint;
  currency: string;
  reason_code: string;
  reason_description: string | null;
  evidence_due_by: Date | null;
  occurred_at: Date;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
  received_at: ColumnType<Date, Date | undefined, never>;
  applied_at: Date | null;
  /** What applying it did (opened, moved, ignored and why). */
  outcome: string | null;
}

export interface DisputeFilesTable {
  file_id: string;
  dispute_id: string;
  merchant_id: string;
  kind: string;
  filename: string;
  content_type: string;
  size_bytes: bigint;
  sha256: string;
  created_at: Date;
}

export interface DisputeFileChunksTable {
  file_id: string;
  merchant_id: string;
  n: number;
  data: Uint8Array;
}

export interface DisputeTables {
  disputes: DisputesTable;
  dispute_notices: DisputeNoticesTable;
  dispute_files: DisputeFilesTable;
  dispute_file_chunks: DisputeFileChunksTable;
}
