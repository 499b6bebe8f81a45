import type { Config } from '../config';
import type { Db } from '../db/database';
import type { OutcomeCode } from '../processor/outcome-codes';
import type { DisputeActions } from './dispute-notices';
import type { OperationResult, PaymentMethodName, Processor, SettlementPayer } from '../processor/processor';

/**
 * A connector: one provider's implementation of the processor contract (processor/processor.ts) for
 * the methods it serves. A connector translates its provider's statuses, refusal codes and field names
 * into Colibri's (processor/outcome-codes.ts) inside itself; nothing of the provider leaks past it.
 * docs/connectors.md explains how to add one.
 */
export interface Connector extends Processor {
  readonly id: string;
  /** Present when the provider reports disputes and takes defences (connectors/dispute-notices.ts). */
  readonly disputes?: DisputeActions;
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
  /**
   * A certificate or key the connector reads: a file path (doctor checks it is readable) or, in a
   * merchant's own credentials, the PEM text itself.
   */
  readonly file?: boolean;
  /** Configures the instance only (a listener, an interval): merchants' own credentials may not set it. */
  readonly instanceOnly?: boolean;
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

/** A PIX charge in Colibri's words: open for the payer, paid (with what was received), or withdrawn. */
export interface PixCharge {
  readonly state: 'OPEN' | 'PAID' | 'WITHDRAWN';
  /** The dynamic BR Code the payer scans or pastes; it carries the provider's location URL. */
  readonly brCode: string;
  readonly receipts: readonly PixReceipt[];
}

/** Money received for a charge, identified by the PIX end-to-end id. */
export interface PixReceipt {
  readonly endToEndId: string;
  readonly amountMinor: bigint;
  readonly receivedAt: Date;
}

export interface PixChargeInput {
  readonly merchantId: string;
  readonly merchantName: string;
  /** Letters and digits, 26 to 35 characters: the charge's id at the provider. */
  readonly txid: string;
  readonly amountMinor: bigint;
  /** The charge stops accepting payments this many seconds after its creation. */
  readonly expiresInSeconds: number;
}

/**
 * A connector that issues PIX charges itself (the API Pix `cob`): Colibri shows the provider's dynamic
 * BR Code and learns of the payment from the provider. The simulator is not one; it makes its own codes.
 */
export interface PixChargeIssuer {
  /** How often an open charge is read back from the provider when no notification came. */
  readonly reconcileEveryMs: number;
  createPixCharge(input: PixChargeInput): Promise<PixCharge>;
  /** The charge as the provider has it, or null when it has none with this txid. */
  readPixCharge(merchantId: string, txid: string): Promise<PixCharge | null>;
  /** Withdraws an open charge (the payer left for another method, or it lapsed). */
  withdrawPixCharge(txid: string): Promise<void>;
  /**
   * Reads a PIX Colibri applied to a payment back from the provider and records what its returns say:
   * a return the provider made on the Banco Central's MED as a dispute notice, the end of a refund of
   * Colibri's in its books. Answers the references of the refunds it settled (their jobs are woken), or
   * null when the provider has no such PIX.
   */
  readPixReturns(pix: PaidPix): Promise<{ readonly settled: readonly string[] } | null>;
}

/** A PIX Colibri applied to a payment: whose it is and how the provider names it (its end-to-end id). */
export interface PaidPix {
  readonly merchantId: string;
  readonly paymentToken: string;
  readonly currency: string;
  readonly endToEndId: string;
}

/** The provider refused to issue a charge (a request it will never accept): the attempt fails with this code of Colibri's. */
export class PixChargeRefusedError extends Error {
  constructor(
    readonly code: OutcomeCode,
    readonly description: string,
  ) {
    super(description);
    this.name = 'PixChargeRefusedError';
  }
}

export function issuesPixCharges(connector: Connector | null | undefined): connector is Connector & PixChargeIssuer {
  return connector !== null && connector !== undefined && typeof (connector as Partial<PixChargeIssuer>).createPixCharge === 'function';
}

/** A payout's recipient as a connector judges it: Colibri's validated fields, by their API names. */
export interface PayoutRecipient {
  readonly country: string;
  readonly account_type: string;
  readonly tax_id_type: string;
  readonly full_name?: string | undefined;
}

/**
 * A connector whose provider needs more of a payout than the interface requires (dLocal needs the recipient's
 * name, which CO makes optional): it names each field it lacks, so the batch is refused when it is created
 * rather than rejected once sent.
 */
export interface PayoutRequirements {
  /** The recipient's fields the provider needs and the item left out, each with a sentence saying why. */
  payoutIssues(recipient: PayoutRecipient): readonly { readonly field: string; readonly sentence: string }[];
}

export function checksPayouts(connector: Connector | null | undefined): connector is Connector & PayoutRequirements {
  return connector !== null && connector !== undefined && typeof (connector as Partial<PayoutRequirements>).payoutIssues === 'function';
}

/** Whether a connector pays settlements to merchants' own accounts (processor/processor.ts SettlementPayer). */
export function paysSettlements(connector: Connector | null | undefined): connector is Connector & SettlementPayer {
  return connector !== null && connector !== undefined && typeof (connector as Partial<SettlementPayer>).paySettlement === 'function';
}
