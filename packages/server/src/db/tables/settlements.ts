import type { ColumnType } from 'kysely';

/** Table types of settlements to merchants (migration 0033-settlements); merged into db/schema.ts's Database. */
export interface SettlementSettingsTable {
  merchant_id: string;
  /** The merchant paused its settlements: none is made until it unpauses. */
  paused: ColumnType<boolean, boolean | undefined, boolean>;
  /** The operator held the merchant's settlements: none is made or sent until released. */
  held: ColumnType<boolean, boolean | undefined, boolean>;
  held_reason: string | null;
  held_at: Date | null;
  updated_at: Date;
}

/** A merchant's bank destination of one currency, and the least amount settled to it. */
export interface SettlementDestinationsTable {
  currency: string;
  merchant_id: string;
  /** A destination of processor/processor.ts SettlementDestination, as JSON (written as a JSON string). */
  destination: ColumnType<Record<string, string | null>, string, string>;
  minimum_minor: bigint;
  updated_at: Date;
}

export interface SettlementsTable {
  settlement_id: string;
  merchant_id: string;
  currency: string;
  amount_minor: bigint;
  /** A status of settlements/states.ts. */
  status: string;
  /** `YYYY-MM-DD`, the local day it was made for (one per merchant, currency and day); read it as text. */
  settlement_day: ColumnType<string, string, never>;
  /** The destination it was sent to, as it was registered when the settlement was made. */
  destination: ColumnType<Record<string, string | null>, string, never>;
  /** `YYYY-MM-DD`: when the money is in the merchant's account (expected while PENDING); read it as text. */
  arrival_date: ColumnType<string, string, string>;
  /** `<settlement_id>:settlement`: the settlement's reference to the processor, and its job's key. */
  processor_reference: string;
  processor_id: string | null;
  failure_code: string | null;
  failure_description: string | null;
  created_at: ColumnType<Date, Date, never>;
  updated_at: Date;
  in_transit_at: Date | null;
  paid_at: Date | null;
  failed_at: Date | null;
}

export interface SettlementTables {
  settlement_settings: SettlementSettingsTable;
  settlement_destinations: SettlementDestinationsTable;
  settlements: SettlementsTable;
}
