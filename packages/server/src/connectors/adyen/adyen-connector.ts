import { eciOutcome, type EciOutcome } from '../../processor/eci';
import type { CheckoutAPI, Types } from '@adyen/api-library';
import type { Db } from '../../db/database';
import { failed } from '../../processor/outcome-codes';
import type { AuthorizeInput, FollowUpInput, OperationResult, PayoutInput, ProcessorCard, VerifyCardInput } from '../../processor/processor';
import type { Connector, ConnectorDefinition, ConnectorSettings, DoctorCheck, KnownOutcome } from '../connector';
import type { DisputeActions } from '../dispute-notices';
import { readOutcome, recordOutcome, settledOrPending } from '../operations';
import { translatePayment } from './adyen-codes';
import { AdyenDisputeActions } from './adyen-dispute-actions';
import { adyenLibrary } from './adyen-library';
import { AdyenRequestRefused, AdyenTransport } from './adyen-transport';


/** The 3DS transStatus an ECI's outcome stands for, as Adyen's mpiData takes it (docs/3ds.md). */
const TRANS_STATUS: Readonly<Record<EciOutcome, 'Y' | 'A' | 'N'>> = { AUTHENTICATED: 'Y', ATTEMPTED: 'A', NOT_AUTHENTICATED: 'N' };

/** The Checkout API's enumerations, from the library (loaded with the first Adyen connector). */
const checkoutTypes = (): typeof Types.checkout => adyenLibrary().Types.checkout;

/** The Checkout API's test base URL, as the library builds it; LIVE uses the account's own prefix. */
const TEST_CHECKOUT_BASE = 'https://checkout-test.adyen.com';

export interface AdyenSettings {
  apiKey: string;
  merchantAccount: string;
  /** The notifications' HMAC key, in hex as Adyen's Customer Area shows it. */
  hmacKey: string;
  environment: 'TEST' | 'LIVE';
  livePrefix: string | undefined;
  checkoutUrl: string | undefined;
  /** Overrides the Disputes API's base URL (Adyen's `ca-test`/`ca-live` hosts otherwise). */
  disputesUrl: string | undefined;
  timeoutMs: number;
  /**
   * The API requires a return URL for redirect flows. Colibri never follows a redirect (it sends its
   * own 3DS data and refuses payments that ask for a shopper action), so it is never visited.
   */
  returnUrl: string;
}

/**
 * Cards through Adyen's Checkout API, with the official `@adyen/api-library` building and typing every
 * request. Colibri's reference is Adyen's `reference` and the request's Idempotency-Key, so a resend
 * after a timeout is the same payment to Adyen. Authorisations answer at once; captures, cancels and
 * refunds are accepted ("received") and settled by notification (adyen-notifications.ts), so until
 * then the contract's answer is ProcessorPendingError and the payment or refund stays PROCESSING.
 * Disputes are reported by notification (adyen-notifications.ts) and answered through the Disputes API
 * (`disputes`, adyen-dispute-actions.ts) with the same credentials.
 */
export class AdyenConnector implements Connector {
  readonly id = 'adyen';
  private readonly checkout: CheckoutAPI;
  readonly disputes: DisputeActions;

  constructor(
    readonly settings: AdyenSettings,
    private readonly db: Db,
  ) {
    const adyen = adyenLibrary();
    const config = new adyen.Config({
      apiKey: settings.apiKey,
      environment: settings.environment === 'LIVE' ? adyen.EnvironmentEnum.LIVE : adyen.EnvironmentEnum.TEST,
      ...(settings.livePrefix ? { liveEndpointUrlPrefix: settings.livePrefix } : {}),
      connectionTimeoutMillis: settings.timeoutMs,
    });
    const transport = new AdyenTransport({ timeoutMs: settings.timeoutMs, checkoutUrl: settings.checkoutUrl, disputesUrl: settings.disputesUrl });
    const client = new adyen.Client(config, transport as never);
    this.checkout = new adyen.CheckoutAPI(client);
    this.disputes = new AdyenDisputeActions(new adyen.DisputesAPI(client).DisputesApi, settings.merchantAccount);
  }

  /** A zero-amount authorisation with the CVV: Adyen's card verification. */
  async verifyCard(input: VerifyCardInput): Promise<OperationResult> {
    return this.send(input.merchantId, input.reference, 'verifyCard', async () => {
      const response = await this.checkout.PaymentsApi.payments(
        {
          merchantAccount: this.settings.merchantAccount,
          reference: input.reference,
          returnUrl: this.settings.returnUrl,
          amount: { currency: 'BRL', value: 0 },
          paymentMethod: { ...cardDetails(input.card), cvc: input.cvv },
          shopperInteraction: checkoutTypes().PaymentRequest.ShopperInteractionEnum.Ecommerce,
        } as Types.checkout.PaymentRequest,
        { idempotencyKey: input.reference },
      );
      return translatePayment(response);
    });
  }

  async authorize(input: AuthorizeInput): Promise<OperationResult> {
    return this.send(input.merchantId, input.reference, 'authorize', async () => {
      const auth = input.authentication;
      const request: Types.checkout.PaymentRequest = {
        merchantAccount: this.settings.merchantAccount,
        reference: input.reference,
        returnUrl: this.settings.returnUrl,
        amount: amountOf(input.amountMinor, input.currency),
        paymentMethod: { ...cardDetails(input.card), ...(input.method === 'DEBITCARD' ? { fundingSource: checkoutTypes().CardDetails.FundingSourceEnum.Debit } : {}) } as Types.checkout.CardDetails,
        shopperInteraction: checkoutTypes().PaymentRequest.ShopperInteractionEnum.Ecommerce,
        ...(input.installments > 1 ? { installments: { value: input.installments } } : {}),
        // A pre-authorisation is held for a later capture; otherwise Adyen captures at once.
        ...(input.capture ? { captureDelayHours: 0 } : { additionalData: { manualCapture: 'true', authorisationType: 'PreAuth' } }),
        ...(auth
          ? {
              mpiData: {
                cavv: auth.cavv,
                eci: auth.eci,
                dsTransID: auth.dsTransId,
                threeDSVersion: auth.version,
                // The transStatus the ECI stands for (processor/eci.ts): Y authenticated, A attempted, N not.
                authenticationResponse: checkoutTypes().ThreeDSecureData.AuthenticationResponseEnum[TRANS_STATUS[eciOutcome(auth.eci) ?? 'NOT_AUTHENTICATED']],
                directoryResponse: checkoutTypes().ThreeDSecureData.DirectoryResponseEnum[TRANS_STATUS[eciOutcome(auth.eci) ?? 'NOT_AUTHENTICATED']],
              },
            }
          : {}),
        ...(input.softDescriptor ? { shopperStatement: input.softDescriptor } : {}),
      };
      return translatePayment(await this.checkout.PaymentsApi.payments(request, { idempotencyKey: input.reference }));
    });
  }

  async capture(input: FollowUpInput): Promise<OperationResult> {
    return this.send(input.merchantId, input.reference, 'capture', async () => {
      const response = await this.checkout.ModificationsApi.captureAuthorisedPayment(
        input.processorId,
        { merchantAccount: this.settings.merchantAccount, reference: input.reference, amount: amountOf(input.amountMinor, input.currency ?? 'BRL') },
        { idempotencyKey: input.reference },
      );
      return received(response);
    });
  }

  async cancel(input: FollowUpInput): Promise<OperationResult> {
    return this.send(input.merchantId, input.reference, 'cancel', async () => {
      const response = await this.checkout.ModificationsApi.cancelAuthorisedPaymentByPspReference(
        input.processorId,
        { merchantAccount: this.settings.merchantAccount, reference: input.reference },
        { idempotencyKey: input.reference },
      );
      return received(response);
    });
  }

  async refund(input: FollowUpInput): Promise<OperationResult> {
    return this.send(input.merchantId, input.reference, 'refund', async () => {
      const response = await this.checkout.ModificationsApi.refundCapturedPayment(
        input.processorId,
        { merchantAccount: this.settings.merchantAccount, reference: input.reference, amount: amountOf(input.amountMinor, input.currency ?? 'BRL') },
        { idempotencyKey: input.reference },
      );
      return received(response);
    });
  }

  async payout(_input: PayoutInput): Promise<OperationResult> {
    throw new Error('the adyen connector does not serve payouts; routing never sends them here');
  }

  /**
   * What this connector has on record for the reference (answers and notifications); null when it
   * never recorded one, and the caller resends under the same Idempotency-Key, which Adyen answers
   * with the original result instead of acting twice.
   */
  async status(merchantId: string, reference: string): Promise<OperationResult | null> {
    const known = await readOutcome(this.db, this.id, merchantId, reference);
    return known ? settledOrPending('status', known) : null;
  }

  /** Whether a notification of `merchantAccountCode` is this connector's and its HMAC signature verifies. */
  verifiesNotification(item: Types.notification.NotificationRequestItem): boolean {
    if (item.merchantAccountCode !== this.settings.merchantAccount) return false;
    if (!item.additionalData?.hmacSignature) return false;
    try {
      return new (adyenLibrary().hmacValidator)().validateHMAC(item, this.settings.hmacKey);
    } catch {
      return false;
    }
  }

  /**
   * Sends one operation and records what Adyen said under Colibri's reference. The record keeps the
   * first settled outcome: when a notification settled the reference before this answer arrived, the
   * answer ("received") does not undo it, and the settled outcome is returned.
   */
  private async send(merchantId: string, reference: string, operation: string, call: () => Promise<KnownOutcome>): Promise<OperationResult> {
    let outcome: KnownOutcome;
    try {
      outcome = await call();
    } catch (error) {
      if (!(error instanceof AdyenRequestRefused)) throw error;
      const code = error.statusCode === 401 || error.statusCode === 403 ? 'CONNECTOR_AUTH' : 'INVALID_REQUEST';
      outcome = failed(code, `${error.errorCode} ${error.message}`);
    }
    const providerReference = 'processorId' in outcome ? outcome.processorId : null;
    const known = await recordOutcome(this.db, { connector: this.id, merchantId, reference, providerReference, outcome });
    return settledOrPending(operation, known);
  }
}

/** The Checkout API base the connector calls. */
export function adyenBaseUrl(settings: AdyenSettings): string {
  if (settings.checkoutUrl) return settings.checkoutUrl;
  if (settings.environment === 'LIVE') return `https://${settings.livePrefix}-checkout-live.adyenpayments.com/checkout`;
  return TEST_CHECKOUT_BASE;
}

/** `colibri doctor`: the settings make sense and the Checkout endpoint answers (any HTTP status). */
async function checkAdyen(settings: AdyenSettings): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [
    { name: 'adyen: merchant account', ok: settings.merchantAccount.length > 0, detail: settings.merchantAccount || 'COLIBRI_ADYEN_MERCHANT_ACCOUNT is empty' },
    { name: 'adyen: HMAC key', ok: /^([0-9a-fA-F]{2})+$/.test(settings.hmacKey), detail: 'COLIBRI_ADYEN_HMAC_KEY must be hex, as the Customer Area shows it' },
  ];
  const base = adyenBaseUrl(settings);
  try {
    const response = await fetch(base, { method: 'GET', signal: AbortSignal.timeout(Math.min(settings.timeoutMs, 5_000)) });
    await response.body?.cancel();
    checks.push({ name: 'adyen: Checkout endpoint reachable', ok: true, detail: `${base} answered HTTP ${response.status}` });
  } catch (error) {
    const cause = (error as Error).cause;
    checks.push({ name: 'adyen: Checkout endpoint reachable', ok: false, detail: `${base}: ${cause instanceof Error ? cause.message : (error as Error).message}` });
  }
  return checks;
}

function cardDetails(card: ProcessorCard): Types.checkout.CardDetails {
  return {
    type: checkoutTypes().CardDetails.TypeEnum.Scheme,
    number: card.number,
    expiryMonth: String(card.expMonth).padStart(2, '0'),
    expiryYear: String(card.expYear),
    holderName: card.holderName,
  };
}

/** Adyen amounts are JSON integers of minor units; Colibri's bigint fits unless beyond 2^53, which no payment reaches. */
function amountOf(amountMinor: bigint, currency: string): Types.checkout.Amount {
  if (amountMinor < 0n || amountMinor > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`amount ${amountMinor} is outside what Adyen accepts`);
  return { currency, value: Number(amountMinor) };
}

/** A modification answer: "received" is Adyen's only success here, and the outcome follows by notification. */
function received(response: { status?: string | undefined; pspReference?: string | undefined }): KnownOutcome {
  if (response.status === 'received') return { status: 'PENDING', processorId: response.pspReference ?? '' };
  return failed('UNEXPECTED_RESULT', `status ${response.status ?? 'missing'}`);
}

function timeoutOf(raw: string | undefined): number {
  const value = raw === undefined ? 15_000 : Number(raw);
  if (!Number.isInteger(value) || value < 100 || value > 120_000) throw new Error(`COLIBRI_ADYEN_TIMEOUT_MS must be an integer between 100 and 120000, got ${raw}`);
  return value;
}

function parseSettings(settings: ConnectorSettings): AdyenSettings {
  const environment = (settings.environment ?? 'TEST').toUpperCase();
  if (environment !== 'TEST' && environment !== 'LIVE') throw new Error(`COLIBRI_ADYEN_ENVIRONMENT must be TEST or LIVE, got ${settings.environment}`);
  return {
    apiKey: settings.api_key ?? '',
    merchantAccount: settings.merchant_account ?? '',
    hmacKey: settings.hmac_key ?? '',
    environment,
    livePrefix: settings.live_prefix,
    checkoutUrl: settings.checkout_url,
    disputesUrl: settings.disputes_url,
    timeoutMs: timeoutOf(settings.timeout_ms),
    returnUrl: settings.return_url ?? 'https://colibri.invalid/return',
  };
}

export const adyenConnector: ConnectorDefinition = {
  id: 'adyen',
  title: "Cards through Adyen's Checkout API",
  methods: ['CREDITCARD', 'DEBITCARD'],
  sandboxOnly: false,
  settings: [
    { env: 'COLIBRI_ADYEN_API_KEY', key: 'api_key', required: true, secret: true, description: 'API key (Customer Area, API credentials); defending disputes needs its API dispute management role' },
    { env: 'COLIBRI_ADYEN_MERCHANT_ACCOUNT', key: 'merchant_account', required: true, secret: false, description: 'The merchant account payments are made on' },
    { env: 'COLIBRI_ADYEN_HMAC_KEY', key: 'hmac_key', required: true, secret: true, description: 'HMAC key of the standard notification webhook, in hex' },
    { env: 'COLIBRI_ADYEN_ENVIRONMENT', key: 'environment', required: false, secret: false, description: 'TEST (default) or LIVE' },
    { env: 'COLIBRI_ADYEN_LIVE_PREFIX', key: 'live_prefix', required: false, secret: false, description: 'The live endpoint prefix of the account (required when LIVE)' },
    { env: 'COLIBRI_ADYEN_CHECKOUT_URL', key: 'checkout_url', required: false, secret: false, description: 'Overrides the Checkout API base URL (a proxy); the versioned path is kept' },
    { env: 'COLIBRI_ADYEN_DISPUTES_URL', key: 'disputes_url', required: false, secret: false, description: 'Overrides the Disputes API base URL (a proxy); the versioned path is kept' },
    { env: 'COLIBRI_ADYEN_RETURN_URL', key: 'return_url', required: false, secret: false, description: 'returnUrl sent with payments; never visited, as Colibri follows no redirect (default https://colibri.invalid/return)' },
    { env: 'COLIBRI_ADYEN_TIMEOUT_MS', key: 'timeout_ms', required: false, secret: false, description: 'Deadline of one call, 100 to 120000 ms (default 15000)' },
  ],
  missingConditional: (settings: ConnectorSettings) =>
    settings.environment === 'LIVE' && !settings.live_prefix && !settings.checkout_url ? ['COLIBRI_ADYEN_LIVE_PREFIX'] : [],
  create: (settings, deps) => new AdyenConnector(parseSettings(settings), deps.db),
  doctor: (settings) => checkAdyen(parseSettings(settings)),
};
