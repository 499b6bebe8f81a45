import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database';
import { exponentOf } from '../../lib/currencies';
import { toJsonNumber } from '../../lib/money';
import { failed } from '../../processor/outcome-codes';
import type { AuthorizeInput, FollowUpInput, OperationResult, PayoutInput, VerifyCardInput } from '../../processor/processor';
import type { Connector, ConnectorDefinition, ConnectorSettings, DoctorCheck, KnownOutcome, PayoutRecipient, PayoutRequirements } from '../connector';
import { readOutcome, recordOutcome, settledOrPending } from '../operations';
import { DlocalApiClient, DlocalRequestRefused, verifyDlocalSignature, type DlocalApiOptions } from './dlocal-api';
import { DLOCAL_ACCOUNT_TYPES, DLOCAL_DOCUMENT_TYPES, translateError, translatePayout, type DlocalPayout } from './dlocal-codes';

export interface DlocalSettings extends DlocalApiOptions {
  /** Where dLocal posts its notifications (Colibri's `/connectors/dlocal/notifications`), or none. */
  readonly notificationUrl: string | undefined;
  /** dLocal's `purpose` of every payout (default OTHER_SERVICES). */
  readonly purpose: string;
}

/** The reference every payout is sent under is `<tx_id>:payout`; dLocal's `external_id` is the tx_id. */
const PAYOUT_REFERENCE = /^([0-9a-f-]{36}):payout$/;

/**
 * The reference of Colibri's payout that a dLocal external_id names (the inverse of `externalIdOf`).
 * @example referenceOfExternalId('5d0b…') // '5d0b…:payout'
 */
export function referenceOfExternalId(externalId: string): string {
  return `${externalId}:payout`;
}

/**
 * Payouts to bank accounts in CO, PE and CL through dLocal's Payouts API v3:
 * - a payout is submitted once per reference: the intent is recorded in the connector's books before the
 *   call, dLocal's `external_id` is Colibri's tx_id, and a resend that dLocal refuses as an external_id
 *   already used (5011) reads that payout back instead of making another;
 * - dLocal answers PENDING and settles later (DELIVERED, then PAID or REJECTED): until then the outcome is
 *   pending (ProcessorPendingError), and `status` reads the payout back (`GET /payouts/v3/{id}`, or by
 *   external_id when the answer was lost);
 * - dLocal's notifications, verified with the account's signature, are applied by payouts/dlocal-notifications.ts.
 * Statuses and codes are translated by dlocal-codes.ts. Cards and PIX are not dLocal's here: routing never
 * sends them.
 */
export class DlocalConnector implements Connector, PayoutRequirements {
  readonly id = 'dlocal';
  readonly api: DlocalApiClient;

  constructor(
    readonly settings: DlocalSettings,
    private readonly db: Db,
  ) {
    this.api = new DlocalApiClient(settings);
  }

  verifyCard(_input: VerifyCardInput): Promise<OperationResult> {
    return notServed('card verification');
  }

  authorize(_input: AuthorizeInput): Promise<OperationResult> {
    return notServed('card authorisation');
  }

  capture(_input: FollowUpInput): Promise<OperationResult> {
    return notServed('capture');
  }

  cancel(_input: FollowUpInput): Promise<OperationResult> {
    return notServed('cancel');
  }

  refund(_input: FollowUpInput): Promise<OperationResult> {
    return notServed('refunds');
  }

  /** dLocal needs the recipient's name, which the interface makes optional in CO (checked when the batch is created). */
  payoutIssues(recipient: PayoutRecipient): readonly { field: string; sentence: string }[] {
    if ((recipient.full_name ?? '').trim() !== '') return [];
    return [{ field: 'full_name', sentence: `is required for ${recipient.country} payouts by this merchant's payout connector (dLocal), which needs the recipient's name.` }];
  }

  /** Whether a notification carries this account's signature (docs/connectors.md, "dLocal"). */
  verifies(headers: { login?: string | undefined; date?: string | undefined; authorization?: string | undefined }, rawBody: string): boolean {
    return verifyDlocalSignature(this.settings.secretKey, headers, rawBody);
  }

  async payout(input: PayoutInput): Promise<OperationResult> {
    const externalId = PAYOUT_REFERENCE.exec(input.reference)?.[1];
    if (!externalId) return failed('INVALID_REQUEST', 'a dLocal payout needs the reference <tx_id>:payout');
    const body = payoutRequest(input, externalId, this.settings);
    if (!body.ok) return failed('INVALID_REQUEST', body.reason);
    // The intent first: whatever becomes of the call, `status` knows to look for this external_id.
    const entry = { connector: this.id, merchantId: input.merchantId, reference: input.reference };
    await recordOutcome(this.db, { ...entry, providerReference: null, outcome: { status: 'PENDING', processorId: '' } });
    let outcome: KnownOutcome | null;
    try {
      outcome = translatePayout(await this.api.submitPayout(body.request));
    } catch (error) {
      if (!(error instanceof DlocalRequestRefused)) throw error;
      outcome = translateError(error.statusCode, error.code, error.detail);
      if (outcome === null) {
        // 5011: dLocal has this external_id already (an earlier attempt whose answer was lost): read it back.
        const existing = await this.api.findPayout(externalId);
        outcome = existing ? translatePayout(existing) : failed('UNEXPECTED_RESULT', 'dLocal refused the external_id as used but has no payout under it');
      }
    }
    const recorded = await recordOutcome(this.db, { ...entry, providerReference: providerIdOf(outcome), outcome });
    return settledOrPending('payout', recorded);
  }

  /**
   * What this connector knows of a payout: its books, and for one still pending dLocal's payout read back.
   * Null when there is no record, or when dLocal never received it: the caller then sends it (again) under
   * the same external_id.
   */
  async status(merchantId: string, reference: string): Promise<OperationResult | null> {
    const row = await this.db
      .selectFrom('connector_operations')
      .select(['result', 'provider_reference'])
      .where('connector', '=', this.id)
      .where('reference', '=', reference)
      .where('merchant_id', '=', merchantId)
      .executeTakeFirst();
    if (!row) return null;
    let known = row.result as KnownOutcome;
    const externalId = PAYOUT_REFERENCE.exec(reference)?.[1];
    if (known.status === 'PENDING' && externalId) {
      const read = row.provider_reference ? await this.api.readPayout(row.provider_reference) : await this.api.findPayout(externalId);
      if (!read) return null;
      const outcome = translatePayout(read);
      known = await recordOutcome(this.db, { connector: this.id, merchantId, reference, providerReference: providerIdOf(outcome) ?? row.provider_reference, outcome });
    }
    return settledOrPending('status', known);
  }

  /** Records what a verified notification says, under the payout's reference; answers the outcome now on record. */
  async recordNotification(merchantId: string, payout: DlocalPayout, db: Db = this.db): Promise<{ readonly outcome: KnownOutcome; readonly recorded: KnownOutcome }> {
    const reference = referenceOfExternalId(payout.external_id ?? '');
    const outcome = translatePayout(payout);
    const recorded = await recordOutcome(db, { connector: this.id, merchantId, reference, providerReference: payout.id ?? null, outcome });
    return { outcome, recorded };
  }

  /** The outcome on record for a reference, without asking dLocal. */
  known(merchantId: string, reference: string): Promise<KnownOutcome | null> {
    return readOutcome(this.db, this.id, merchantId, reference);
  }
}

function providerIdOf(outcome: KnownOutcome): string | null {
  return 'processorId' in outcome && outcome.processorId ? outcome.processorId : null;
}

/**
 * The `POST /payouts/v3` body of a payout, from the item Colibri validated (payouts/validation/): the amount
 * in the payment currency (what reaches the recipient), the recipient's document and bank account in
 * dLocal's words. A recipient without a name (CO makes `full_name` optional, dLocal does not) cannot be sent.
 */
export function payoutRequest(input: PayoutInput, externalId: string, settings: Pick<DlocalSettings, 'notificationUrl' | 'purpose'>): { ok: true; request: Record<string, unknown> } | { ok: false; reason: string } {
  const accountType = DLOCAL_ACCOUNT_TYPES[input.country]?.[input.accountType];
  const documentType = DLOCAL_DOCUMENT_TYPES[input.country]?.[input.taxIdType ?? ''];
  if (!accountType || !documentType) return { ok: false, reason: `dLocal has no ${input.country} account type ${input.accountType} or document type ${input.taxIdType ?? '(none)'}` };
  const names = (input.fullName ?? '').trim().split(/\s+/).filter((word) => word !== '');
  if (names.length === 0) return { ok: false, reason: "dLocal needs the recipient's full_name, which this payout left out" };
  // Two words or three: the first is the given name; four or more: the first two (Spanish names carry two surnames).
  const cut = names.length >= 4 ? 2 : 1;
  const firstName = names.slice(0, cut).join(' ');
  const lastName = names.length > 1 ? names.slice(cut).join(' ') : firstName;
  return {
    ok: true,
    request: {
      external_id: externalId,
      country: input.country,
      currency: input.currency,
      // The currency the recipient is paid in: the same, since Colibri did any FX itself.
      currency_to_pay: input.currency,
      amount: toJsonNumber(input.amountMinor, exponentOf(input.currency)),
      payment_method_id: 'BANK_TRANSFER',
      flow_type: 'B2C',
      purpose: settings.purpose,
      ...(settings.notificationUrl ? { notification_url: settings.notificationUrl } : {}),
      beneficiary: {
        first_name: firstName,
        last_name: lastName,
        ...(input.email ? { email: input.email } : {}),
        // A RUT is sent as its body and check digit, without the dots that group its digits.
        document: { type: documentType, id: input.country === 'CL' ? input.taxId.replace(/\./g, '') : input.taxId },
        bank_account: {
          ...(input.bankCode ? { code: input.bankCode } : {}),
          account: input.accountNumber,
          type: accountType,
        },
      },
    },
  };
}

function notServed(what: string): Promise<OperationResult> {
  return Promise.reject(new Error(`the dlocal connector does not serve ${what}; routing never sends it here`));
}

function httpsUrl(raw: string | undefined, env: string, allowHttp: boolean): string {
  let url: URL;
  try {
    url = new URL(raw ?? '');
  } catch {
    throw new Error(`${env} must be an https URL, got ${JSON.stringify(raw ?? '')}`);
  }
  const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(allowHttp && loopback && url.protocol === 'http:')) throw new Error(`${env} must be an https URL, got ${raw}`);
  return url.toString().replace(/\/$/, '');
}

function integerOf(raw: string | undefined, env: string, fallback: number, min: number, max: number): number {
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${env} must be an integer between ${min} and ${max}, got ${raw}`);
  return value;
}

export function parseDlocalSettings(settings: ConnectorSettings): DlocalSettings {
  return {
    // dLocal is reached over HTTPS; a loopback http URL is allowed for a local fake or proxy.
    apiUrl: httpsUrl(settings.api_url ?? 'https://sandbox.dlocal.com', 'COLIBRI_DLOCAL_API_URL', true),
    clientId: settings.client_id ?? '',
    clientSecret: settings.client_secret ?? '',
    secretKey: settings.secret_key ?? '',
    timeoutMs: integerOf(settings.timeout_ms, 'COLIBRI_DLOCAL_TIMEOUT_MS', 15_000, 100, 120_000),
    notificationUrl: settings.notification_url ? httpsUrl(settings.notification_url, 'COLIBRI_DLOCAL_NOTIFICATION_URL', true) : undefined,
    purpose: settings.purpose ?? 'OTHER_SERVICES',
  };
}

/** `colibri doctor`: the settings parse, dLocal issues an access token, and answers a read of a payout that does not exist. */
export async function checkDlocal(raw: ConnectorSettings): Promise<DoctorCheck[]> {
  let settings: DlocalSettings;
  try {
    settings = parseDlocalSettings(raw);
  } catch (error) {
    return [{ name: 'dlocal: settings', ok: false, detail: (error as Error).message }];
  }
  const checks: DoctorCheck[] = [{ name: 'dlocal: settings', ok: true, detail: `${settings.apiUrl}, purpose ${settings.purpose}` }];
  checks.push(settings.notificationUrl
    ? { name: 'dlocal: notification URL', ok: true, detail: settings.notificationUrl }
    : { name: 'dlocal: notification URL', ok: true, detail: 'unset: payouts are settled by reading them back only' });
  const api = new DlocalApiClient({ ...settings, timeoutMs: Math.min(settings.timeoutMs, 5_000) });
  try {
    const found = await api.findPayout(randomUUID());
    checks.push({ name: 'dlocal: Payouts API reachable', ok: true, detail: `${settings.apiUrl} issued an access token and accepted GET /payouts/v3 (${found ? 'a payout' : 'no such payout, as expected'})` });
  } catch (error) {
    const credentials = error instanceof DlocalRequestRefused && (error.statusCode === 401 || error.code === 4001 || error.code === 4002);
    const detail = error instanceof DlocalRequestRefused ? `refused: ${error.message}${credentials ? ' (client credentials or IP address not accepted)' : ''}` : (error as Error).message;
    checks.push({ name: 'dlocal: Payouts API reachable', ok: false, detail: `${settings.apiUrl}: ${detail}` });
  }
  return checks;
}

export const dlocalConnector: ConnectorDefinition = {
  id: 'dlocal',
  title: "Payouts to CO, PE and CL bank accounts through dLocal's Payouts API v3",
  methods: ['PAYOUT'],
  sandboxOnly: false,
  settings: [
    { env: 'COLIBRI_DLOCAL_CLIENT_ID', key: 'client_id', required: true, secret: false, description: 'client_id of the Payouts v3 OAuth credentials (Merchant Dashboard → Settings → Integrations)' },
    { env: 'COLIBRI_DLOCAL_CLIENT_SECRET', key: 'client_secret', required: true, secret: true, description: 'client_secret of the Payouts v3 OAuth credentials: exchanged for access tokens' },
    { env: 'COLIBRI_DLOCAL_SECRET_KEY', key: 'secret_key', required: true, secret: true, description: 'Secret key: the Payload-Signature of each request with a body, and the signature of notifications (HMAC-SHA256)' },
    { env: 'COLIBRI_DLOCAL_API_URL', key: 'api_url', required: false, secret: false, description: 'https://sandbox.dlocal.com (default) or https://api.dlocal.com' },
    { env: 'COLIBRI_DLOCAL_NOTIFICATION_URL', key: 'notification_url', required: false, secret: false, description: "Sent as each payout's notification_url: {public base URL}/connectors/dlocal/notifications" },
    { env: 'COLIBRI_DLOCAL_PURPOSE', key: 'purpose', required: false, secret: false, description: "dLocal's purpose of the payouts (default OTHER_SERVICES)" },
    { env: 'COLIBRI_DLOCAL_TIMEOUT_MS', key: 'timeout_ms', required: false, secret: false, description: 'Deadline of one call, 100 to 120000 ms (default 15000)' },
  ],
  create: (settings, deps) => new DlocalConnector(parseDlocalSettings(settings), deps.db),
  doctor: (settings) => checkDlocal(settings),
};
