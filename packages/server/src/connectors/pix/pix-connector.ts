import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Db } from '../../db/database';
import { formatAmount } from '../../lib/money';
import { failed } from '../../processor/outcome-codes';
import type { AuthorizeInput, FollowUpInput, OperationResult, PayoutInput, VerifyCardInput } from '../../processor/processor';
import { BrCodeError, generateBrCode, parseBrCode } from '../../rails/pix';
import { PixChargeRefusedError, type Connector, type ConnectorDefinition, type ConnectorSettings, type DoctorCheck, type KnownOutcome, type PaidPix, type PixCharge, type PixChargeInput, type PixChargeIssuer } from '../connector';
import { recordOutcome, settledOrPending } from '../operations';
import { PixApiClient, PixRequestRefused, type CobCompleta, type PixApiOptions } from './pix-api';
import { cobState, devolucaoIdOf, receiptOf, REFUND_REFERENCE, translateDevolucao, translateProblem } from './pix-codes';
import { recordDevolucoes } from './pix-returns';

/** What the client needs to reach the PSP, and what the connector adds. */
export interface PixSettings extends PixApiOptions {
  /** The receiver's PIX key at the PSP (`chave` of every charge). */
  receiverKey: string;
  /** Written in BR Codes Colibri builds when the PSP returns none (`pixCopiaECola`). */
  merchantCity: string;
  reconcileMs: number;
}

/**
 * PIX through the Banco Central's API Pix, the interface every Brazilian PSP implements:
 * - a PIX attempt is an immediate charge (`PUT /cob/{txid}`), whose dynamic BR Code carries the PSP's
 *   location URL, expiring with the attempt (`calendario.expiracao`);
 * - the PSP's `/pix` webhook (checkout/pix-webhook.ts) or reading the charge back
 *   (`GET /cob/{txid}`) tells that it was paid, with the PIX's `endToEndId`;
 * - a refund is a devolução of that `endToEndId` (`PUT /pix/{e2eid}/devolucao/{id}`), read back
 *   (`GET`) or notified until DEVOLVIDO or NAO_REALIZADO;
 * - a devolução the PSP made on the Banco Central's MED is found on the PIX (the webhook, or
 *   `GET /pix/{e2eid}`) and kept as a dispute notice (pix-returns.ts).
 * Statuses and errors are translated by pix-codes.ts. Cards and payouts are not PIX: routing never
 * sends them here.
 */
export class PixConnector implements Connector, PixChargeIssuer {
  readonly id = 'pix';
  readonly reconcileEveryMs: number;

  constructor(
    readonly settings: PixSettings,
    private readonly db: Db,
    readonly api: PixApiClient = new PixApiClient(settings),
  ) {
    this.reconcileEveryMs = settings.reconcileMs;
  }

  verifyCard(_input: VerifyCardInput): Promise<OperationResult> {
    return notServed('card verification');
  }

  authorize(_input: AuthorizeInput): Promise<OperationResult> {
    return notServed('card authorisation');
  }

  capture(_input: FollowUpInput): Promise<OperationResult> {
    return notServed('capture (a PIX is paid whole)');
  }

  cancel(_input: FollowUpInput): Promise<OperationResult> {
    return notServed('cancel');
  }

  payout(_input: PayoutInput): Promise<OperationResult> {
    return notServed('payouts');
  }

  /** `PUT /cob/{txid}`; a refusal (a 4xx, the credentials included) is a PixChargeRefusedError with Colibri's code. */
  async createPixCharge(input: PixChargeInput): Promise<PixCharge> {
    try {
      const cob = await this.api.putCob(input.txid, {
        calendario: { expiracao: Math.max(1, Math.floor(input.expiresInSeconds)) },
        valor: { original: formatAmount(input.amountMinor, 2), modalidadeAlteracao: 0 },
        chave: this.settings.receiverKey,
      });
      return this.chargeOf(cob, input.merchantName);
    } catch (error) {
      if (!(error instanceof PixRequestRefused)) throw error;
      const outcome = translateProblem(error.statusCode, error.errorName, error.problem.detail ?? error.problem.title);
      throw new PixChargeRefusedError(outcome.code, outcome.description);
    }
  }

  async readPixCharge(merchantId: string, txid: string): Promise<PixCharge | null> {
    const cob = await this.api.getCob(txid);
    if (!cob) return null;
    const merchant = await this.db.selectFrom('merchants').select('name').where('id', '=', merchantId).executeTakeFirst();
    return this.chargeOf(cob, merchant?.name ?? 'COLIBRI');
  }

  async withdrawPixCharge(txid: string): Promise<void> {
    try {
      await this.api.patchCob(txid, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    } catch (error) {
      // A charge no longer ATIVA (paid or removed meanwhile) cannot be withdrawn; the caller reads it back.
      if (!(error instanceof PixRequestRefused)) throw error;
    }
  }

  /**
   * `GET /pix/{e2eid}`: the PIX with its devoluções, recorded in one transaction (pix-returns.ts): a MED
   * devolução becomes a dispute notice, one of Colibri's settles its refund's record.
   */
  async readPixReturns(pix: PaidPix): Promise<{ readonly settled: readonly string[] } | null> {
    const read = await this.api.getPix(pix.endToEndId);
    if (!read) return null;
    const now = new Date();
    return this.db.transaction().execute((trx) => recordDevolucoes(trx, pix, this.id, read.devolucoes ?? [], now));
  }

  /**
   * A refund: a devolução of the received PIX (`processorId` is its endToEndId). The intent is recorded
   * first with the devolução's address, so that `status` can read it back whatever happens to the call;
   * a resend of an id the PSP already has (which it refuses) reads that devolução instead.
   */
  async refund(input: FollowUpInput): Promise<OperationResult> {
    const id = devolucaoIdOf(input.reference);
    if (!id || !/^[a-zA-Z0-9]{32}$/.test(input.processorId)) return failed('INVALID_REQUEST', 'a PIX refund needs the endToEndId of the payment and a refund reference');
    const address = `${input.processorId}/${id}`;
    await recordOutcome(this.db, { connector: this.id, merchantId: input.merchantId, reference: input.reference, providerReference: address, outcome: { status: 'PENDING', processorId: '' } });
    let outcome: KnownOutcome;
    try {
      outcome = translateDevolucao(await this.api.putDevolucao(input.processorId, id, { valor: formatAmount(input.amountMinor, 2), natureza: 'ORIGINAL' }));
    } catch (error) {
      if (!(error instanceof PixRequestRefused)) throw error;
      const existing = await this.api.getDevolucao(input.processorId, id).catch((readError: unknown) => {
        if (readError instanceof PixRequestRefused) return null;
        throw readError;
      });
      outcome = existing ? translateDevolucao(existing) : translateProblem(error.statusCode, error.errorName, error.problem.detail ?? error.problem.title);
    }
    return settledOrPending('refund', await recordOutcome(this.db, { connector: this.id, merchantId: input.merchantId, reference: input.reference, providerReference: address, outcome }));
  }

  /**
   * What this connector knows of a reference: its record, and for a refund still pending the PSP's
   * devolução read back (`GET`). Null when it has no record, or the PSP never received the devolução:
   * the caller then sends it (again) under the same id.
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
    const address = /^([a-zA-Z0-9]{32})\/([a-zA-Z0-9]{1,35})$/.exec(row.provider_reference ?? '');
    if (known.status === 'PENDING' && address && REFUND_REFERENCE.test(reference)) {
      const devolucao = await this.api.getDevolucao(address[1]!, address[2]!);
      if (!devolucao) return null;
      known = await recordOutcome(this.db, { connector: this.id, merchantId, reference, providerReference: row.provider_reference, outcome: translateDevolucao(devolucao) });
    }
    return settledOrPending('status', known);
  }

  /** The charge in Colibri's words; the PSP's copy-and-paste code when it is the dynamic code of this charge. */
  private chargeOf(cob: CobCompleta, merchantName: string): PixCharge {
    const location = cob.location ?? cob.loc?.location ?? '';
    let brCode: string | undefined;
    if (cob.pixCopiaECola) {
      try {
        const parsed = parseBrCode(cob.pixCopiaECola);
        if (parsed.kind === 'dynamic' && parsed.location === location) brCode = cob.pixCopiaECola;
      } catch {
        // Not a valid BR Code: Colibri builds one from the location.
      }
    }
    if (!brCode && location) brCode = dynamicBrCode(location, merchantName, this.settings.merchantCity, cob.valor.original);
    return {
      state: cobState(cob.status),
      brCode: brCode ?? '',
      receipts: (cob.pix ?? []).flatMap((pix) => receiptOf(pix) ?? []),
    };
  }
}

/** The standard's dynamic BR Code: the location URL, the amount, and the receiver's name and city. */
function dynamicBrCode(location: string, merchantName: string, merchantCity: string, amount: string): string {
  const input = { location: location.replace(/^https:\/\//, ''), merchantCity, amount, pointOfInitiation: 'single-use' as const };
  try {
    return generateBrCode({ ...input, merchantName });
  } catch (error) {
    if (!(error instanceof BrCodeError)) throw error;
    return generateBrCode({ ...input, merchantName: 'COLIBRI' });
  }
}

function notServed(what: string): Promise<OperationResult> {
  return Promise.reject(new Error(`the pix connector does not serve ${what}; routing never sends it here`));
}

/** A PEM setting: the PEM text itself (a merchant's credentials), or the path of a file holding it. */
export function readPem(value: string, env: string): string {
  if (value.trimStart().startsWith('-----BEGIN')) return value;
  try {
    return readFileSync(value, 'utf8');
  } catch (error) {
    throw new Error(`${env}: cannot read ${value} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { cause: error });
  }
}

function integerOf(raw: string | undefined, env: string, fallback: number, min: number, max: number): number {
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${env} must be an integer between ${min} and ${max}, got ${raw}`);
  return value;
}

function httpsUrl(raw: string | undefined, env: string): string {
  let url: URL;
  try {
    url = new URL(raw ?? '');
  } catch {
    throw new Error(`${env} must be an https URL, got ${JSON.stringify(raw ?? '')}`);
  }
  if (url.protocol !== 'https:') throw new Error(`${env} must be an https URL (API Pix runs over mutual TLS), got ${raw}`);
  return url.toString().replace(/\/$/, '');
}

export function parsePixSettings(settings: ConnectorSettings): PixSettings {
  return {
    apiUrl: httpsUrl(settings.api_url, 'COLIBRI_PIX_API_URL'),
    tokenUrl: httpsUrl(settings.token_url, 'COLIBRI_PIX_TOKEN_URL'),
    clientId: settings.client_id ?? '',
    clientSecret: settings.client_secret ?? '',
    cert: readPem(settings.cert ?? '', 'COLIBRI_PIX_CERT'),
    key: readPem(settings.key ?? '', 'COLIBRI_PIX_KEY'),
    ca: settings.ca ? readPem(settings.ca, 'COLIBRI_PIX_CA') : undefined,
    receiverKey: settings.receiver_key ?? '',
    merchantCity: settings.merchant_city ?? 'SAO PAULO',
    scope: settings.scope ?? 'cob.write cob.read pix.write pix.read',
    timeoutMs: integerOf(settings.timeout_ms, 'COLIBRI_PIX_TIMEOUT_MS', 15_000, 100, 120_000),
    reconcileMs: integerOf(settings.reconcile_ms, 'COLIBRI_PIX_RECONCILE_MS', 30_000, 100, 3_600_000),
  };
}

/** `colibri doctor`: the client certificate fits its key and is valid, the token endpoint issues a token, the API answers. */
export async function checkPix(raw: ConnectorSettings): Promise<DoctorCheck[]> {
  const settings = parsePixSettings(raw);
  const checks: DoctorCheck[] = [certificateCheck('pix: client certificate', settings.cert, settings.key)];
  const api = new PixApiClient({ ...settings, timeoutMs: Math.min(settings.timeoutMs, 5_000) });
  try {
    await api.accessToken();
    checks.push({ name: 'pix: token endpoint reachable', ok: true, detail: `${settings.tokenUrl} issued a token over mutual TLS` });
    const probe = await api.getCob(randomBytes(16).toString('hex'));
    checks.push({ name: 'pix: API Pix reachable', ok: true, detail: `${settings.apiUrl} answered GET /cob/{txid} (${probe ? 'a charge' : 'no such charge, as expected'})` });
  } catch (error) {
    const cause = (error as { cause?: { message?: string; code?: string } }).cause;
    const detail = error instanceof PixRequestRefused ? `refused: HTTP ${error.statusCode} ${error.message}` : `${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
    checks.push({ name: api.tokensIssued > 0 ? 'pix: API Pix reachable' : 'pix: token endpoint reachable', ok: false, detail: `${api.tokensIssued > 0 ? settings.apiUrl : settings.tokenUrl}: ${detail}` });
  } finally {
    await api.close();
  }
  if (raw.webhook_port !== undefined) {
    checks.push(certificateCheck('pix: webhook listener certificate', readPem(raw.webhook_cert ?? '', 'COLIBRI_PIX_WEBHOOK_CERT'), readPem(raw.webhook_key ?? '', 'COLIBRI_PIX_WEBHOOK_KEY')));
  }
  return checks;
}

function certificateCheck(name: string, certPem: string, keyPem: string): DoctorCheck {
  try {
    const cert = new X509Certificate(certPem);
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) return { name, ok: false, detail: 'the key does not belong to the certificate' };
    const now = Date.now();
    if (now < Date.parse(cert.validFrom) || now > Date.parse(cert.validTo)) return { name, ok: false, detail: `not valid now (valid ${cert.validFrom} to ${cert.validTo})` };
    return { name, ok: true, detail: `${cert.subject.replace(/\n/g, ', ')}, valid until ${cert.validTo}` };
  } catch (error) {
    return { name, ok: false, detail: `not a PEM certificate and key: ${(error as Error).message}` };
  }
}

export const pixConnector: ConnectorDefinition = {
  id: 'pix',
  title: "PIX through the Banco Central's API Pix",
  methods: ['PIX'],
  sandboxOnly: false,
  settings: [
    { env: 'COLIBRI_PIX_API_URL', key: 'api_url', required: true, secret: false, description: "The PSP's API Pix base URL (https, e.g. https://pix.example.com/api/v2)" },
    { env: 'COLIBRI_PIX_TOKEN_URL', key: 'token_url', required: true, secret: false, description: "The PSP's OAuth2 token endpoint" },
    { env: 'COLIBRI_PIX_CLIENT_ID', key: 'client_id', required: true, secret: false, description: 'OAuth2 client id the PSP issued' },
    { env: 'COLIBRI_PIX_CLIENT_SECRET', key: 'client_secret', required: true, secret: true, description: 'OAuth2 client secret' },
    { env: 'COLIBRI_PIX_CERT', key: 'cert', required: true, secret: false, file: true, description: 'Client certificate (PEM) registered at the PSP, for mutual TLS' },
    { env: 'COLIBRI_PIX_KEY', key: 'key', required: true, secret: true, file: true, description: "The client certificate's private key (PEM)" },
    { env: 'COLIBRI_PIX_CA', key: 'ca', required: false, secret: false, file: true, description: "CA certificates (PEM) to trust for the PSP's servers instead of the system's" },
    { env: 'COLIBRI_PIX_RECEIVER_KEY', key: 'receiver_key', required: true, secret: false, description: "The receiver's PIX key (chave) at the PSP, written in every charge" },
    { env: 'COLIBRI_PIX_MERCHANT_CITY', key: 'merchant_city', required: false, secret: false, description: 'City written in BR Codes Colibri builds when the PSP returns none (default SAO PAULO)' },
    { env: 'COLIBRI_PIX_SCOPE', key: 'scope', required: false, secret: false, description: 'OAuth2 scopes asked for (default "cob.write cob.read pix.write pix.read")' },
    { env: 'COLIBRI_PIX_TIMEOUT_MS', key: 'timeout_ms', required: false, secret: false, description: 'Deadline of one call, 100 to 120000 ms (default 15000)' },
    { env: 'COLIBRI_PIX_RECONCILE_MS', key: 'reconcile_ms', required: false, secret: false, instanceOnly: true, description: 'How often an open charge is read back when no notification came, 100 to 3600000 ms (default 30000)' },
    { env: 'COLIBRI_PIX_WEBHOOK_PORT', key: 'webhook_port', required: false, secret: false, instanceOnly: true, description: 'Port of the HTTPS listener for the PSP\'s /pix webhook (mutual TLS); unset: no listener' },
    { env: 'COLIBRI_PIX_WEBHOOK_HOST', key: 'webhook_host', required: false, secret: false, instanceOnly: true, description: 'Address the webhook listener binds (default COLIBRI_HOST)' },
    { env: 'COLIBRI_PIX_WEBHOOK_CERT', key: 'webhook_cert', required: false, secret: false, file: true, instanceOnly: true, description: "The webhook listener's server certificate (PEM)" },
    { env: 'COLIBRI_PIX_WEBHOOK_KEY', key: 'webhook_key', required: false, secret: true, file: true, instanceOnly: true, description: "The webhook listener's private key (PEM)" },
    { env: 'COLIBRI_PIX_WEBHOOK_CLIENT_CA', key: 'webhook_client_ca', required: false, secret: false, file: true, instanceOnly: true, description: "CA certificates (PEM) of the PSPs' client certificates the webhook accepts" },
    { env: 'COLIBRI_PIX_WEBHOOK_CLIENT_FINGERPRINTS', key: 'webhook_client_fingerprints', required: false, secret: false, instanceOnly: true, description: 'Optional SHA-256 fingerprints (comma-separated) the client certificate must have' },
  ],
  missingConditional: (settings) =>
    settings.webhook_port === undefined ? [] : (['webhook_cert', 'webhook_key', 'webhook_client_ca'] as const).filter((key) => !settings[key]).map((key) => `COLIBRI_PIX_${key.toUpperCase()}`),
  create: (settings, deps) => new PixConnector(parsePixSettings(settings), deps.db),
  doctor: (settings) => checkPix(settings),
};
