import type { ColumnType, Generated } from 'kysely';

/**
 * Table types for Kysely. Each domain adds its tables here next to its migration. Money columns are
 * `bigint` minor units; timestamps are `timestamptz`.
 */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface MerchantsTable {
  id: Generated<string>;
  name: string;
  contract_id: string;
  payout_contract_id: string;
  webhook_secret: string;
  /** Sandbox clock: how far this merchant's clock runs ahead of the real one. */
  clock_offset_ms: Generated<bigint>;
  created_at: CreatedAt;
}

export interface UsersTable {
  id: Generated<string>;
  merchant_id: string;
  username: string;
  name: string;
  enabled: Generated<boolean>;
  roles: string[];
  api_key: string;
  /** SHA-256 of the API secret, hex. See auth/secrets.ts for why a fast hash is right here. */
  api_secret_hash: string;
  created_at: CreatedAt;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  request_hash: string;
  state: 'IN_PROGRESS' | 'COMPLETED';
  response_status: number | null;
  response_body: string | null;
  response_content_type: string | null;
  created_at: CreatedAt;
  expires_at: Date;
}

export interface Database {
  merchants: MerchantsTable;
  users: UsersTable;
  settings: SettingsTable;
  idempotency_keys: IdempotencyKeysTable;
}
