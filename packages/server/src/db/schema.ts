import type { ColumnType, Generated } from 'kysely';
import type { ConnectorTables } from './tables/connectors';
import type { CheckoutTables } from './tables/checkout';
import type { PaymentTables } from './tables/payments';
import type { RefundTables } from './tables/refunds';
import type { PayoutTables } from './tables/payouts';
import type { ReportTables } from './tables/reports';
import type { ThreeDsTables } from './tables/three-ds';
import type { SubscriptionTables } from './tables/subscriptions';
import type { WebhookTables } from './tables/webhooks';
import type { DashboardTables } from './tables/dashboard';
import type { DisputeTables } from './tables/disputes';
import type { BalanceTables } from './tables/balance';
import type { SettlementTables } from './tables/settlements';
import type { ReconciliationTables } from './tables/reconciliation';
import type { BoletoBankTables } from './tables/boleto-bank';

/**
 * Table types for Kysely. Each domain adds its tables here, or in tables/<domain>.ts, next to its
 * migration (migrations/), so that db/ sits below the domains that use it: nothing here imports a
 * domain. Money columns are `bigint` minor units; timestamps are `timestamptz`.
 */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface MerchantsTable {
  id: Generated<string>;
  name: string;
  contract_id: string;
  payout_contract_id: string;
  webhook_secret: string;
  /** A disabled merchant's tokens and logins are refused (auth/access-list.ts). */
  enabled: Generated<boolean>;
  /** Sandbox clock: how far this merchant's clock runs ahead of the real one. */
  clock_offset_ms: Generated<bigint>;
  /** Business days from a boleto's generation to its due date (docs/checkout.md, Boleto). */
  boleto_due_business_days: Generated<number>;
  /** IANA time zone the dashboard shows times in; null: America/Sao_Paulo (docs/dashboard.md). */
  time_zone: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** The secret replaced by the last rotation stays valid until `previous_api_secret_expires_at`. */
  previous_api_secret_hash: string | null;
  previous_api_secret_expires_at: Date | null;
  created_at: CreatedAt;
}

/** Token signing keys (auth/tokens.ts), encrypted with the master key whose id is kept beside them. */
export interface TokenSigningKeysTable {
  kid: string;
  key_ciphertext: string;
  master_key_id: string;
  created_at: CreatedAt;
}

/** One RSA key pair per merchant for browser-side card encryption (vault/card-encryption-keys.ts). */
export interface CardEncryptionKeysTable {
  kid: string;
  merchant_id: string;
  public_jwk: string;
  private_key_ciphertext: string;
  master_key_id: string;
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
  /** While IN_PROGRESS: the claim's lease, renewed while its request runs; a lapsed lease means the process died. */
  lease_until: Date | null;
  /** The claim that holds the key now: only its request may store the answer. */
  owner: string | null;
}

export interface JobsTable {
  id: Generated<string>;
  kind: string;
  payload: unknown;
  run_at: ColumnType<Date, Date | string | undefined, Date | string>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  locked_by: string | null;
  locked_until: Date | null;
  last_error: string | null;
  failed_at: Date | null;
  unique_key: string | null;
  created_at: CreatedAt;
  /** An attempt may have reached the processor without an answer: only a status query may settle it. */
  outcome_unknown: Generated<boolean>;
  /** When an operation of unknown outcome passed its deadline (reported in GET /admin/stuck-operations). */
  stuck_since: Date | null;
}

export interface EventsTable {
  id: Generated<string>;
  merchant_id: string;
  type: string;
  resource_type: string;
  resource_id: string;
  data: unknown;
  notification_urls: string[];
  created_at: CreatedAt;
  /** Set by a trigger from one sequence, and copied into `data.sequence`. */
  sequence: Generated<bigint | null>;
}

export interface LedgerEntriesTable {
  id: Generated<string>;
  journal_id: string;
  merchant_id: string;
  kind: string;
  account: string;
  amount_minor: bigint;
  currency: string;
  resource_id: string | null;
  /** `YYYY-MM-DD`: when the money of a `merchant_payable` or `reserve_held` line is the merchant's (migration 0032). */
  available_on: ColumnType<string | null, string | null | undefined, never>;
  created_at: CreatedAt;
}

export interface FeePlansTable {
  merchant_id: string;
  plan: unknown;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface FxRatesTable {
  currency: string;
  brl_per_unit: string;
  as_of: ColumnType<Date, string, string>;
}

export interface SandboxOperationsTable {
  reference: string;
  merchant_id: string;
  operation: string;
  result: unknown;
  created_at: CreatedAt;
  /** What the simulated acquirer settled by this operation (a sale, a capture, a refund), in minor units (migration 0034). */
  settled_minor: bigint | null;
  currency: string | null;
  /** When it settled, on the merchant clock. */
  settled_at: Date | null;
}

export interface SandboxFaultsTable {
  merchant_id: string;
  operation: string;
  fault: string;
  remaining: number;
}

export interface PersonsTable {
  id: Generated<string>;
  merchant_id: string;
  name: string;
  email: string;
  tax_id_type: 'CPF' | 'CNPJ';
  tax_id: string;
  phone: string | null;
  created_at: CreatedAt;
}

export interface CardsTable {
  id: Generated<string>;
  merchant_id: string;
  person_id: string;
  scheme: string;
  bin: string;
  last4: string;
  masked_number: string;
  exp_month: number;
  exp_year: number;
  holder_name: string;
  /** AES-256-GCM ciphertext of the card number (see lib/secret-box.ts). */
  number_ciphertext: string;
  key_id: string;
  status: Generated<string>;
  created_at: CreatedAt;
}

export interface Database extends ConnectorTables, PaymentTables, RefundTables, PayoutTables, CheckoutTables, SubscriptionTables, ThreeDsTables, ReportTables, WebhookTables, DashboardTables, DisputeTables, BalanceTables, SettlementTables, ReconciliationTables, BoletoBankTables {
  merchants: MerchantsTable;
  users: UsersTable;
  settings: SettingsTable;
  token_signing_keys: TokenSigningKeysTable;
  card_encryption_keys: CardEncryptionKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
  events: EventsTable;
  ledger_entries: LedgerEntriesTable;
  fee_plans: FeePlansTable;
  fx_rates: FxRatesTable;
  sandbox_operations: SandboxOperationsTable;
  sandbox_faults: SandboxFaultsTable;
  persons: PersonsTable;
  cards: CardsTable;
}
