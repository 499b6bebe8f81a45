import type { ColumnType } from 'kysely';

/** Table types of boletos registered through bank files (migration 0036-boleto-bank-files); merged into db/schema.ts's Database. */
export interface BoletoBankFilesTable {
  id: string;
  direction: 'REMESSA' | 'RETORNO';
  bank_code: string;
  /** The file's sequence number (NSA); null for a return refused before it could be read. */
  sequence: number | null;
  name: string;
  content: string;
  content_sha256: string;
  /** WRITING: stored, not yet in the outbox; WRITTEN: in the outbox; PROCESSED: a return applied; REFUSED. */
  status: 'WRITING' | 'WRITTEN' | 'PROCESSED' | 'REFUSED';
  refusal: ColumnType<{ line: number; field: string; reason: string } | null, string | null | undefined, string | null>;
  lines: number;
  created_at: ColumnType<Date, Date | undefined, never>;
  processed_at: Date | null;
}

export interface BoletoRegistrationsTable {
  merchant_id: string;
  payment_token: string;
  connector: string;
  bank_code: string;
  nosso_numero: string;
  amount_minor: bigint;
  /** YYYY-MM-DD; read it as text. */
  due_date: string;
  issued_on: string;
  status: 'PENDING' | 'SENT' | 'REGISTERED' | 'REJECTED' | 'PAID' | 'WRITTEN_OFF';
  write_off: 'PENDING' | 'SENT' | null;
  remessa_id: string | null;
  write_off_remessa_id: string | null;
  paid_minor: bigint | null;
  tariff_minor: bigint | null;
  paid_on: string | null;
  credited_on: string | null;
  result_code: string | null;
  result_description: string | null;
  /** The payer the boleto was registered with (migration 0044); null where none was given (sandbox). */
  payer_tax_id_type: ColumnType<'CPF' | 'CNPJ' | null, 'CPF' | 'CNPJ' | null | undefined, never>;
  payer_tax_id: ColumnType<string | null, string | null | undefined, never>;
  payer_name: ColumnType<string | null, string | null | undefined, never>;
  payer_address: ColumnType<string | null, string | null | undefined, never>;
  payer_district: ColumnType<string | null, string | null | undefined, never>;
  payer_city: ColumnType<string | null, string | null | undefined, never>;
  payer_state: ColumnType<string | null, string | null | undefined, never>;
  payer_postal_code: ColumnType<string | null, string | null | undefined, never>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface BoletoReturnsTable {
  merchant_id: string;
  occurrence_key: string;
  payment_token: string;
  file_id: string;
  line: number;
  movement: string;
  outcome: string;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface BoletoFindingsTable {
  id: string;
  file_id: string;
  line: number;
  merchant_id: string | null;
  payment_token: string | null;
  nosso_numero: string;
  kind: 'PAID_TWICE' | 'PAID_AFTER_CLOSE' | 'AMOUNT_DIFFERS' | 'UNKNOWN_BOLETO' | 'UNKNOWN_MOVEMENT';
  detail: string;
  amount_minor: bigint | null;
  created_at: ColumnType<Date, Date | undefined, never>;
  resolved_at: Date | null;
}

export interface BoletoBankTables {
  boleto_bank_files: BoletoBankFilesTable;
  boleto_registrations: BoletoRegistrationsTable;
  boleto_returns: BoletoReturnsTable;
  boleto_findings: BoletoFindingsTable;
}
