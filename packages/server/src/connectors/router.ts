import type { Config } from '../config';
import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import type {
  AuthorizeInput,
  FollowUpInput,
  OperationResult,
  PaymentMethodName,
  PayoutInput,
  Processor,
  SettlementPayer,
  VerifyCardInput,
} from '../processor/processor';
import type { SecretBox } from '../lib/secret-box';
import { paysSettlements, type Connector, type ConnectorDefinition } from './connector';
import { findConnector, type ConnectorPlan } from './plan';

/** How long a process trusts its copy of a merchant's own connectors (admin changes apply within it). */
const OVERRIDE_CACHE_MS = 5_000;

interface MerchantConnector {
  method: PaymentMethodName;
  connector: Connector;
}

/**
 * The processor every domain calls: it implements the contract by handing each operation to the
 * connector that serves its method for its merchant, the merchant's own (merchant_connectors) or the
 * instance's (the plan). A method nothing serves is refused with CONNECTOR_NOT_CONFIGURED: domains call
 * `requireMethod` before they store anything, so the refusal is a clean 422 and never half a write.
 */
export class ConnectorRouter implements Processor {
  private readonly instance = new Map<PaymentMethodName, Connector>();
  private readonly byId = new Map<string, Connector>();
  private readonly merchants = new Map<string, { loadedAt: number; connectors: Promise<MerchantConnector[]> }>();

  constructor(
    private readonly plan: ConnectorPlan,
    private readonly deps: { db: Db; config: Config; cipher: SecretBox },
  ) {
    // Instance connectors are built now, so one that refuses this mode stops the start.
    for (const [method, route] of plan.routes) {
      const connector = this.byId.get(route.definition.id) ?? route.definition.create(route.settings, deps);
      this.byId.set(route.definition.id, connector);
      this.instance.set(method, connector);
    }
  }

  /** The instance's connectors, one per connector id (doctor and notification routes use them). */
  instanceConnectors(): Connector[] {
    return [...this.byId.values()];
  }

  /** Each method the instance serves and the id of its connector. */
  routing(): { method: PaymentMethodName; connector: string }[] {
    return [...this.instance].map(([method, connector]) => ({ method, connector: connector.id }));
  }

  /**
   * Every merchant's own connectors of one kind (e.g. all merchants' Adyen accounts, to verify a
   * notification with the right key).
   */
  async merchantConnectorsOf(connectorId: string): Promise<Connector[]> {
    const rows = await this.deps.db.selectFrom('merchant_connectors').select('merchant_id').distinct().where('connector', '=', connectorId).execute();
    const found: Connector[] = [];
    for (const row of rows) {
      for (const own of await this.ownConnectors(row.merchant_id)) if (own.connector.id === connectorId) found.push(own.connector);
    }
    return found;
  }

  /** Forgets a merchant's cached connectors after an admin change. */
  forget(merchantId: string): void {
    this.merchants.delete(merchantId);
  }

  /**
   * The connector serving `method` for a merchant, or CONNECTOR_NOT_CONFIGURED.
   * @example const connector = await router.connectorFor(merchantId, 'CREDITCARD');
   */
  async connectorFor(merchantId: string, method: PaymentMethodName): Promise<Connector> {
    const own = (await this.ownConnectors(merchantId)).find((c) => c.method === method);
    const connector = own?.connector ?? this.instance.get(method);
    if (!connector) {
      throw new ApiError('CONNECTOR_NOT_CONFIGURED', `${method} has no processor connector in ${this.plan.mode} mode; ask the operator to configure one (docs/connectors.md).`);
    }
    return connector;
  }

  /** Refuses a request for a method nothing serves, before anything is stored. @example await ctx.connectors.requireMethod(merchantId, 'PIX') */
  async requireMethod(merchantId: string, method: PaymentMethodName): Promise<void> {
    await this.connectorFor(merchantId, method);
  }

  /**
   * The connector that pays a merchant's settlements: the one serving its PAYOUT method, when it implements
   * `paySettlement` (the simulator does; in live mode, the operator's bank connector: docs/connectors.md,
   * "Settlements"). Null when none does, and the settlement waits.
   * @example const payer = await router.settlementPayer(merchantId);
   */
  async settlementPayer(merchantId: string): Promise<(Connector & SettlementPayer) | null> {
    const own = (await this.ownConnectors(merchantId)).find((c) => c.method === 'PAYOUT');
    const connector = own?.connector ?? this.instance.get('PAYOUT');
    return paysSettlements(connector) ? connector : null;
  }

  async verifyCard(input: VerifyCardInput): Promise<OperationResult> {
    return (await this.connectorFor(input.merchantId, 'CREDITCARD')).verifyCard(input);
  }

  async authorize(input: AuthorizeInput): Promise<OperationResult> {
    return (await this.connectorFor(input.merchantId, input.method ?? 'CREDITCARD')).authorize(input);
  }

  async capture(input: FollowUpInput): Promise<OperationResult> {
    return (await this.connectorFor(input.merchantId, input.method ?? 'CREDITCARD')).capture(input);
  }

  async cancel(input: FollowUpInput): Promise<OperationResult> {
    return (await this.connectorFor(input.merchantId, input.method ?? 'CREDITCARD')).cancel(input);
  }

  async refund(input: FollowUpInput): Promise<OperationResult> {
    return (await this.connectorFor(input.merchantId, input.method ?? 'CREDITCARD')).refund(input);
  }

  async payout(input: PayoutInput): Promise<OperationResult> {
    return (await this.connectorFor(input.merchantId, 'PAYOUT')).payout(input);
  }

  /**
   * Asks the connector of `method`, or without it each connector that serves the merchant, in turn:
   * a reference is known to at most one of them.
   */
  async status(merchantId: string, reference: string, method?: PaymentMethodName): Promise<OperationResult | null> {
    if (method) return (await this.connectorFor(merchantId, method)).status(merchantId, reference, method);
    const candidates = new Set<Connector>([...(await this.ownConnectors(merchantId)).map((c) => c.connector), ...this.instance.values()]);
    for (const connector of candidates) {
      const known = await connector.status(merchantId, reference);
      if (known) return known;
    }
    return null;
  }

  private ownConnectors(merchantId: string): Promise<MerchantConnector[]> {
    const cached = this.merchants.get(merchantId);
    if (cached && Date.now() - cached.loadedAt < OVERRIDE_CACHE_MS) return cached.connectors;
    const connectors = this.loadOwn(merchantId);
    this.merchants.set(merchantId, { loadedAt: Date.now(), connectors });
    connectors.catch(() => this.merchants.delete(merchantId));
    return connectors;
  }

  private async loadOwn(merchantId: string): Promise<MerchantConnector[]> {
    const rows = await this.deps.db.selectFrom('merchant_connectors').selectAll().where('merchant_id', '=', merchantId).execute();
    return rows.flatMap((row) => {
      const definition = findConnector(row.connector);
      if (!definition || (definition.sandboxOnly && this.plan.mode !== 'sandbox')) return [];
      const credentials = JSON.parse(this.deps.cipher.decrypt(row.key_id, row.credentials_ciphertext)) as Record<string, string>;
      return [{ method: row.method as PaymentMethodName, connector: definition.create(mergedSettings(definition, this.deps.config, credentials), this.deps) }];
    });
  }
}

/** A merchant's settings: the instance's settings of that connector, overlaid with the merchant's own. */
export function mergedSettings(definition: ConnectorDefinition, config: Pick<Config, 'connectorEnv'>, credentials: Readonly<Record<string, string>>): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const setting of definition.settings) {
    const value = credentials[setting.key] ?? config.connectorEnv[setting.env];
    if (value !== undefined && value !== '') settings[setting.key] = value;
  }
  return settings;
}
