/**
 * The evidence a merchant can give (docs/disputes.md, "Evidence"): text fields, kept in the dispute's
 * row, and files (PDF, JPEG or PNG) of a kind, kept in PostgreSQL (disputes/evidence-files.ts).
 */
export const EVIDENCE_TEXT_FIELDS = [
  'customer_communication',
  'shipping_carrier',
  'shipping_tracking_number',
  'refund_policy',
  'product_description',
  'uncategorized_text',
] as const;
export type EvidenceTextField = (typeof EVIDENCE_TEXT_FIELDS)[number];

/** The longest text field, in characters. */
export const EVIDENCE_TEXT_MAX = 20_000;

/** What an evidence file shows; `uncategorized` when the upload names no kind. */
export const EVIDENCE_FILE_KINDS = ['receipt', 'customer_communication', 'shipping_documentation', 'refund_policy', 'product_description', 'uncategorized'] as const;
export type EvidenceFileKind = (typeof EVIDENCE_FILE_KINDS)[number];

/** What acquirers accept: at most 5 MB a file and 10 MB for all of a dispute's files. */
export const EVIDENCE_FILE_MAX_BYTES = 5 * 1024 * 1024;
export const EVIDENCE_TOTAL_MAX_BYTES = 10 * 1024 * 1024;
