import type { ColumnType } from 'kysely';

/** Table types of the connector layer (migration 0017-connectors); merged into db/schema.ts's Database. */
export interface MerchantConnectorsTable {
  merchant_id: string;
  method: string;
  connector: string;
  key_id: string;
  /** AES-256-GCM ciphertext of the credentials' JSON (lib/secret-box.ts). */
  credentials_ciphertext: string;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface ConnectorOperationsTable {
  connector: string;
  reference: string;
  merchant_id: string;
  provider_reference: string | null;
  /** A `KnownOutcome` (connectors/connector.ts). */
  result: unknown;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface ConnectorNotificationsTable {
  connector: string;
  notification_key: string;
  payload: unknown;
  received_at: ColumnType<Date, Date | undefined, never>;
}

export interface ConnectorTables {
  merchant_connectors: MerchantConnectorsTable;
  connector_operations: ConnectorOperationsTable;
  connector_notifications: ConnectorNotificationsTable;
}
