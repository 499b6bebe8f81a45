import type { ColumnType, Generated } from 'kysely';

/** Table types of the 3DS domain (migrations 0008-three-ds, 0014 and 0027); merged into db/schema.ts's Database. */
export interface ThreeDsAuthenticationsTable {
  id: Generated<string>;
  merchant_id: string;
  payment_token: string;
  status: string;
  env: string;
  merchant_origin: string | null;
  reference_id: string;
  notification_url: string;
  method: string;
  installments: number;
  amount_minor: bigint;
  currency: string;
  person_id: string | null;
  card_id: string | null;
  eci: string | null;
  version: string | null;
  dstrans_id: string | null;
  cavv_ciphertext: string | null;
  cavv_key_id: string | null;
  error_code: string | null;
  error_description: string | null;
  /** The processor declined the card's verification; the library is not told, the payment is refused. */
  card_declined: Generated<boolean>;
  /** First six and last four digits, for the challenge page. */
  masked_number: string | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
  authenticated_at: Date | null;
  used_at: Date | null;
  /** When the customer failed the challenge (migration 0027): every terminal status reached by a move has its time. */
  challenge_failed_at: Date | null;
}

/** An authentication of another 3DS server that paid a payment of the merchant (migration 0039). */
export interface ExternalAuthenticationsTable {
  merchant_id: string;
  dstrans_id: string;
  eci: string;
  version: string;
  claimed_at: Date;
}

export interface ThreeDsTables {
  three_ds_authentications: ThreeDsAuthenticationsTable;
  external_authentications: ExternalAuthenticationsTable;
}
