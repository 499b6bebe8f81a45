import type { Config } from '../config';
import type { Db } from '../db/database';
import type { OperationResult, PaymentMethodName, Processor } from '../processor/processor';

/**
 * A connector: one provider's implementation of the processor contract (processor/processor.ts) for
 * the methods it serves. A connector translates its provider's statuses, refusal codes and field names
 * into Colibri's (processor/outcome-codes.ts) inside itself; nothing of the provider leaks past it.
 * docs/connectors.md explains how to add one.
 */
export interface Connector extends Processor {
  readonly id: string;
}

export interface DoctorCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** One setting of a connector: an environment variable for the instance, a credential key per merchant. */
export interface ConnectorSetting {
  /** The environment variable that configures it for the whole instance. */
  readonly env: string;
  /** Its key in a merchant's own credentials (`PUT /admin/merchants/<id>/connectors/<method>`). */
  readonly key: string;
  readonly required: boolean;
  /** Secrets are never printed (doctor, admin answers). */
  readonly secret: boolean;
  readonly description: string;
  /** A path the connector reads (a certificate or key): doctor checks it is readable. */
  readonly file?: boolean;
}

export type ConnectorSettings = Readonly<Record<string, string>>;

export interface ConnectorDeps {
  readonly db: Db;
  readonly config: Config;
}

export interface ConnectorDefinition {
  readonly id: string;
  readonly title: string;
  readonly methods: readonly PaymentMethodName[];
  /** The simulator: refused in live mode, where it would make up outcomes. */
  readonly sandboxOnly: boolean;
  readonly settings: readonly ConnectorSetting[];
  /**
   * Settings required only in some configurations (e.g. a live endpoint prefix in the provider's LIVE
   * environment): returns the env names of those missing.
   */
  readonly missingConditional?: (settings: ConnectorSettings) => readonly string[];
  create(settings: ConnectorSettings, deps: ConnectorDeps): Connector;
  /**
   * The connector's own checks for `colibri doctor` (settings that parse, endpoints that answer);
   * presence of required settings and readability of file settings are checked for every connector.
   */
  doctor?(settings: ConnectorSettings): Promise<DoctorCheck[]>;
}

/** What a connector has on record for a reference: a result, or an operation accepted and not yet settled. */
export type KnownOutcome = OperationResult | { readonly status: 'PENDING'; readonly processorId: string };
