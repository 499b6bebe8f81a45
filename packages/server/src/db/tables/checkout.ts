import type { ColumnType } from 'kysely';

/** A session's boleto payer as stored (JSON). */
export interface StoredPayer {
  tax_id_type: 'CPF' | 'CNPJ';
  tax_id: string;
  name: string;
  street: string;
  number: string;
  complement: string | null;
  district: string;
  city: string;
  state: string;
  postal_code: string;
}

/** Table types of hosted checkout (migration 0009-checkout); merged into db/schema.ts's Database. */
export interface CheckoutSessionsTable {
  checkout_id: ColumnType<string, string | undefined, never>;
  merchant_id: string;
  contract_id: string;
  reference_id: string;
  checkout_reference_id: string | null;
  mode: 'SINGLE' | 'MULTI';
  methods: string[];
  /** A status of checkout/states.ts; the column's check constraint holds the same list. */
  status: string;
  original_amount_minor: bigint;
  original_currency: string;
  /** The amount in BRL, the currency every checkout method pays in. */
  amount_minor: bigint;
  currency: string;
  fx_rate: string | null;
  fx_rate_date: string | null;
  notification_url: string | null;
  success_url: string | null;
  declined_url: string | null;
  error_url: string | null;
  checkout_notification_url: string | null;
  pix_direct: boolean;
  payment_country: string;
  payment_currency: string;
  save_card: boolean;
  /** The latest payment attempt, and its status as this session last applied it. */
  current_payment_token: string | null;
  current_payment_status: string | null;
  /**
   * Set while a card attempt (person, card, 3DS, sendPayment) holds the session, from when it started;
   * its payment does not exist yet. Null otherwise (migration 0025).
   */
  card_attempt_started_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  attempts: ColumnType<number, number | undefined, number>;
  /**
   * The boleto payer (checkout/boleto-payer.ts: tax_id_type, tax_id, name, street, number, complement,
   * district, city, state, postal_code), from generation or the page; null until one is given (migration 0044).
   */
  payer: ColumnType<StoredPayer | null, string | null | undefined, string | null>;
  /** Why a final session ended: PAID, DECLINED, ERROR, EXPIRED or ATTEMPTS_EXHAUSTED. */
  end_reason: string | null;
  expires_at: Date;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
  processing_at: Date | null;
  paid_at: Date | null;
  canceled_at: Date | null;
  failed_at: Date | null;
}

/** What a PIX or BOLETO attempt shows the payer, fixed when the payment is created. */
export interface CheckoutPaymentCodesTable {
  payment_token: string;
  /** The payment's merchant (the key and foreign keys carry it: docs/scaling.md). */
  merchant_id: string;
  checkout_id: string;
  br_code: string | null;
  txid: string | null;
  barcode: string | null;
  digitable_line: string | null;
  /** YYYY-MM-DD */
  due_date: string | null;
  /** OXXO and PAYNET: the voucher reference the cashier types. Nullable columns of migration 0015. */
  reference: ColumnType<string | null, string | null | undefined, string | null>;
  /** SPEI: the 18-digit CLABE the payer transfers to. */
  clabe: ColumnType<string | null, string | null | undefined, string | null>;
  /** PicPay: what its QR code carries. */
  qr_payload: ColumnType<string | null, string | null | undefined, string | null>;
  /** PicPay: the link that opens the wallet app on a phone. */
  deep_link: ColumnType<string | null, string | null | undefined, string | null>;
  /** A paid boleto compensates (PROCESSING → PAID) at this time on the merchant clock. */
  compensates_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface CheckoutTables {
  checkout_sessions: CheckoutSessionsTable;
  checkout_payment_codes: CheckoutPaymentCodesTable;
}
