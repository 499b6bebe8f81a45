import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import adyen from '@adyen/api-library';
import * as disputeModels from '@adyen/api-library/lib/src/typings/disputes/models.js';
import { FakeDisputes, DISPUTE_OPERATIONS, type FakeDispute } from './adyen-fake-disputes';

/**
 * A local fake of Adyen's Checkout API (v72), its Disputes API (v30, adyen-fake-disputes.ts) and its
 * standard notifications, written from Adyen's public documentation, for tests only (loopback). It
 * checks every request against the request models that Adyen publishes in its library (`Types.checkout`,
 * and the disputes models of `typings/disputes`: unknown fields, types, enum values, base64 content)
 * plus the fields the API reference marks required, keeps its own books (payments, modifications,
 * idempotency keys, disputes and their documents), and signs notifications with the HMAC scheme Adyen
 * documents, computed here independently of the library that Colibri verifies them with.
 *
 * Outcomes follow Adyen's test conventions: a payment is Authorised unless the holder name is a
 * refusal reason's name (e.g. "Not enough balance"), which refuses it with that reason's code.
 */

type Models = Record<string, ModelClass & Record<string, unknown>>;
const models = adyen.Types.checkout as unknown as Models;
/** The Disputes API's models: the library exports them only by their own path (no `Types.disputes`). */
const disputesModels = disputeModels as unknown as Models;
interface ModelClass {
  getAttributeTypeMap(): { name: string; baseName: string; type: string; format?: string }[];
}

/** Adyen's refusal reasons by name and code (docs.adyen.com, "Refusal reasons"). */
export const ADYEN_REFUSALS: Readonly<Record<string, string>> = {
  Refused: '2', Referral: '3', 'Acquirer Error': '4', 'Blocked Card': '5', 'Expired Card': '6', 'Invalid Amount': '7',
  'Invalid Card Number': '8', 'Issuer Unavailable': '9', 'Not supported': '10', '3D Not Authenticated': '11',
  'Not enough balance': '12', 'Acquirer Fraud': '14', Cancelled: '15', 'Shopper Cancelled': '16', 'Invalid Pin': '17',
  'Pin tries exceeded': '18', 'Pin validation not possible': '19', FRAUD: '20', 'Not Submitted': '21', 'FRAUD-CANCELLED': '22',
  'Transaction Not Permitted': '23', 'CVC Declined': '24', 'Restricted Card': '25', 'Revocation Of Auth': '26',
  'Declined Non Generic': '27', 'Withdrawal amount exceeded': '28', 'Withdrawal count exceeded': '29',
  'Issuer Suspected Fraud': '31', 'AVS Declined': '32', 'Card requires online pin': '33',
  'No checking account available on Card': '34', 'No savings account available on Card': '35', 'Mobile pin required': '36',
  'Contactless fallback': '37', 'Authentication required': '38', 'RReq not received from DS': '39',
  'Current AID is in Penalty Box': '40', 'CVM Required Restart Payment': '41', '3DS Authentication Error': '42',
  'Online PIN required': '43', 'Transaction blocked by Adyen to prevent excessive retry fees': '44',
};

const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  PaymentRequest: ['amount', 'merchantAccount', 'paymentMethod', 'reference', 'returnUrl'],
  PaymentCaptureRequest: ['amount', 'merchantAccount'],
  PaymentCancelRequest: ['merchantAccount'],
  PaymentRefundRequest: ['amount', 'merchantAccount'],
  Amount: ['currency', 'value'],
  // Disputes API v30 (DisputeService-v30.json in Adyen's OpenAPI specifications).
  DefenseReasonsRequest: ['merchantAccountCode', 'disputePspReference'],
  AcceptDisputeRequest: ['merchantAccountCode', 'disputePspReference'],
  DefendDisputeRequest: ['merchantAccountCode', 'disputePspReference', 'defenseReasonCode'],
  DeleteDefenseDocumentRequest: ['merchantAccountCode', 'disputePspReference', 'defenseDocumentType'],
  SupplyDefenseDocumentRequest: ['merchantAccountCode', 'disputePspReference', 'defenseDocuments'],
  DefenseDocument: ['content', 'contentType', 'defenseDocumentTypeCode'],
};

/** The fields of one value that break its published model; empty when it conforms. */
export function schemaProblems(type: string, value: unknown, path = '', namespace: Models = models, format = ''): string[] {
  const t = type.replace(/ \| null$/, '');
  if (value === undefined || value === null) return [];
  if (t === 'string' && format === 'byte') {
    return typeof value === 'string' && value.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? [] : [`${path}: expected base64`];
  }
  if (t === 'string' || t === 'Date') return typeof value === 'string' ? [] : [`${path}: expected string`];
  if (t === 'number') return typeof value === 'number' && Number.isInteger(value) ? [] : [`${path}: expected integer`];
  if (t === 'boolean') return typeof value === 'boolean' ? [] : [`${path}: expected boolean`];
  if (t.startsWith('{ [key: string]: string; }')) {
    if (typeof value !== 'object' || Array.isArray(value)) return [`${path}: expected object`];
    return Object.entries(value).filter(([, v]) => typeof v !== 'string').map(([k]) => `${path}.${k}: expected string`);
  }
  const array = /^Array<(.+)>$/.exec(t);
  if (array) return Array.isArray(value) ? value.flatMap((v, i) => schemaProblems(array[1]!, v, `${path}[${i}]`, namespace)) : [`${path}: expected array`];
  const enumType = /^(\w+)\.(\w+Enum)$/.exec(t);
  if (enumType) {
    const values = Object.values((namespace[enumType[1]!]?.[enumType[2]!] ?? {}) as Record<string, string>);
    return values.includes(value as string) ? [] : [`${path}: ${JSON.stringify(value)} is not one of ${values.join(', ')}`];
  }
  // The payment method is a union; a card ("scheme") is checked against CardDetails.
  const modelName = t === 'PaymentRequestPaymentMethod' ? 'CardDetails' : t;
  const model = namespace[modelName];
  if (!model || typeof model.getAttributeTypeMap !== 'function') return [`${path}: unknown model ${t}`];
  if (typeof value !== 'object' || Array.isArray(value)) return [`${path}: expected object`];
  const attributes = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a]));
  const problems: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const attribute = attributes.get(key);
    if (!attribute) problems.push(`${path ? `${path}.` : ''}${key}: not a field of ${modelName}`);
    else problems.push(...schemaProblems(attribute.type, v, path ? `${path}.${key}` : key, namespace, attribute.format));
  }
  for (const key of REQUIRED[modelName] ?? []) if ((value as Record<string, unknown>)[key] === undefined) problems.push(`${path ? `${path}.` : ''}${key}: required`);
  return problems;
}

export interface FakePayment {
  pspReference: string;
  reference: string;
  amount: { currency: string; value: number };
  request: Record<string, unknown>;
  resultCode: string;
  refusalReasonCode?: string;
  captured: number;
  refunded: number;
}

export interface FakeModification {
  kind: 'capture' | 'cancel' | 'refund';
  pspReference: string;
  paymentPspReference: string;
  reference: string;
  amount: { currency: string; value: number } | undefined;
}

/** How the fake misbehaves on the next calls of a path kind, in order. */
export type AdyenFault = 'TIMEOUT_AFTER_PROCESSING' | 'HTTP_500_BEFORE_PROCESSING' | 'HTTP_500_AFTER_PROCESSING';

export class AdyenFake {
  readonly apiKey = `AQE_test_${randomBytes(8).toString('hex')}`;
  readonly merchantAccount = 'ColibriTestBR';
  readonly hmacKey = randomBytes(32).toString('hex').toUpperCase();
  readonly payments = new Map<string, FakePayment>();
  readonly modifications: FakeModification[] = [];
  /** Every request the fake received, with its schema problems (a test asserts there were none). */
  readonly received: { path: string; idempotencyKey: string | undefined; body: Record<string, unknown>; problems: string[] }[] = [];
  readonly faults: AdyenFault[] = [];
  /** The Disputes API's books: disputes opened with openDispute, their documents, defences and acceptances. */
  readonly disputes = new FakeDisputes();
  private readonly idempotent = new Map<string, { body: string; status: number; answer: unknown }>();
  private server: Server | undefined;
  private sequence = 0;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** The environment that points Colibri's Adyen connector at this fake. */
  env(timeoutMs = 1_000): Record<string, string> {
    return {
      COLIBRI_ADYEN_API_KEY: this.apiKey,
      COLIBRI_ADYEN_MERCHANT_ACCOUNT: this.merchantAccount,
      COLIBRI_ADYEN_HMAC_KEY: this.hmacKey,
      COLIBRI_ADYEN_CHECKOUT_URL: this.url,
      COLIBRI_ADYEN_DISPUTES_URL: `${this.url}/ca/services/DisputeService`,
      COLIBRI_ADYEN_TIMEOUT_MS: String(timeoutMs),
    };
  }

  private psp(): string {
    this.sequence += 1;
    return `PSP${Date.now().toString().slice(-8)}${String(this.sequence).padStart(8, '0')}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const send = (status: number, answer: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    };
    if (req.method !== 'POST') return send(405, { status: 405, errorCode: '000', message: 'Method not allowed', errorType: 'validation' });
    if (req.headers['x-api-key'] !== this.apiKey) return send(401, { status: 401, errorCode: '000', message: 'HTTP Status Response - Unauthorized', errorType: 'security' });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return send(400, { status: 400, errorCode: '702', message: 'Structure could not be parsed', errorType: 'validation' });
    }
    const route = routeOf(path);
    if (!route) return send(404, { status: 404, errorCode: '000', message: 'Not found', errorType: 'validation' });
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    const problems = schemaProblems(route.model, body, '', route.kind === 'dispute' ? disputesModels : models);
    this.received.push({ path, idempotencyKey, body, problems });
    if (problems.length > 0) return send(422, { status: 422, errorCode: '702', message: problems.join('; '), errorType: 'validation' });
    // The Checkout API names the account `merchantAccount`, the Disputes API `merchantAccountCode`.
    if ((route.kind === 'dispute' ? body.merchantAccountCode : body.merchantAccount) !== this.merchantAccount) {
      return send(403, { status: 403, errorCode: '901', message: 'Invalid Merchant Account', errorType: 'security' });
    }

    // Idempotency as Adyen documents it: the same key answers the first answer; another body is refused.
    if (idempotencyKey) {
      const earlier = this.idempotent.get(idempotencyKey);
      if (earlier) {
        if (earlier.body !== raw) return send(422, { status: 422, errorCode: '704', message: 'request already processed or in progress', errorType: 'validation' });
        return send(earlier.status, earlier.answer);
      }
    }
    const fault = this.faults.shift();
    if (fault === 'HTTP_500_BEFORE_PROCESSING') return send(500, { status: 500, errorCode: '905', message: 'Payment details are not supported', errorType: 'internal' });
    const [status, answer] = this.process(route, path, body);
    if (idempotencyKey && status < 500) this.idempotent.set(idempotencyKey, { body: raw, status, answer });
    if (fault === 'HTTP_500_AFTER_PROCESSING') return send(500, { status: 500, errorCode: '000', message: 'Internal error', errorType: 'internal' });
    // The answer is lost: the client gives up waiting; the operation stands.
    if (fault === 'TIMEOUT_AFTER_PROCESSING') return;
    send(status, answer);
  }

  private process(route: Route, _path: string, body: Record<string, unknown>): [number, unknown] {
    if (route.kind === 'dispute') return [200, this.disputes.process(route.psp, body)];
    if (route.kind === 'payment') {
      const method = body.paymentMethod as Record<string, string>;
      const amount = body.amount as { currency: string; value: number };
      const reason = ADYEN_REFUSALS[method.holderName ?? ''];
      const payment: FakePayment = {
        pspReference: this.psp(),
        reference: body.reference as string,
        amount,
        request: body,
        resultCode: reason ? 'Refused' : 'Authorised',
        ...(reason ? { refusalReasonCode: reason } : {}),
        captured: 0,
        refunded: 0,
      };
      this.payments.set(payment.pspReference, payment);
      return [200, {
        pspReference: payment.pspReference,
        resultCode: payment.resultCode,
        merchantReference: payment.reference,
        amount,
        ...(reason ? { refusalReason: method.holderName, refusalReasonCode: reason } : {}),
      }];
    }
    const payment = this.payments.get(route.psp);
    if (!payment || payment.resultCode !== 'Authorised') {
      return [422, { status: 422, errorCode: '167', message: 'Original pspReference required for this operation', errorType: 'validation' }];
    }
    const amount = body.amount as { currency: string; value: number } | undefined;
    if (amount && amount.value > payment.amount.value) return [422, { status: 422, errorCode: '137', message: 'Invalid amount specified', errorType: 'validation' }];
    const modification: FakeModification = { kind: route.kind, pspReference: this.psp(), paymentPspReference: payment.pspReference, reference: (body.reference as string) ?? '', amount };
    this.modifications.push(modification);
    return [201, {
      merchantAccount: this.merchantAccount,
      paymentPspReference: payment.pspReference,
      pspReference: modification.pspReference,
      reference: modification.reference,
      status: 'received',
      ...(amount ? { amount } : {}),
    }];
  }

  /**
   * A standard notification item, signed as Adyen signs it: HMAC-SHA256 under the hex key of
   * pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success.
   */
  item(
    fields: { eventCode: string; success: boolean; pspReference: string; originalReference?: string; merchantReference: string; amount: { currency: string; value: number }; reason?: string; eventDate?: string; additionalData?: Record<string, string>; merchantAccountCode?: string },
    key = this.hmacKey,
  ): Record<string, unknown> {
    const item = {
      amount: fields.amount,
      eventCode: fields.eventCode,
      eventDate: fields.eventDate ?? new Date().toISOString(),
      merchantAccountCode: fields.merchantAccountCode ?? this.merchantAccount,
      merchantReference: fields.merchantReference,
      ...(fields.originalReference ? { originalReference: fields.originalReference } : {}),
      pspReference: fields.pspReference,
      reason: fields.reason ?? '',
      success: String(fields.success),
    };
    const signed = [item.pspReference, fields.originalReference ?? '', item.merchantAccountCode, item.merchantReference, item.amount.value, item.amount.currency, item.eventCode, item.success].join(':');
    const hmacSignature = createHmac('sha256', Buffer.from(key, 'hex')).update(signed, 'utf8').digest('base64');
    return { NotificationRequestItem: { ...item, additionalData: { ...fields.additionalData, hmacSignature } } };
  }

  /**
   * Opens a dispute on a payment the fake authorised, as an issuer would (the test then sends its
   * notifications with disputeItem). Its reason code picks the defences Adyen offers (adyen-fake-disputes.ts).
   */
  openDispute(payment: FakePayment, options: { reasonCode: string; schemeCode?: string; value?: number; reason?: string }): FakeDispute {
    return this.disputes.open({ pspReference: this.psp(), payment, reasonCode: options.reasonCode, schemeCode: options.schemeCode ?? 'visa', amount: { currency: payment.amount.currency, value: options.value ?? payment.amount.value }, reason: options.reason ?? '' });
  }

  /**
   * A dispute notification as Adyen sends it: every event of the dispute under its pspReference, the
   * payment's under originalReference (absent from the later events, as in Adyen's examples), the
   * payment's reference as merchantReference; the reason code in additionalData (rfiReasonCode for a
   * request for information) and the defence period's end for the events that open a stage.
   */
  disputeItem(
    dispute: FakeDispute,
    eventCode: string,
    options: { eventDate?: Date; success?: boolean; defensePeriodEndsAt?: Date; additionalData?: Record<string, string>; merchantReference?: string; originalReference?: boolean } = {},
  ): Record<string, unknown> {
    const eventDate = options.eventDate ?? new Date();
    const opens = ['REQUEST_FOR_INFORMATION', 'NOTIFICATION_OF_CHARGEBACK', 'CHARGEBACK', 'SECOND_CHARGEBACK'].includes(eventCode);
    const ends = options.defensePeriodEndsAt ?? new Date(eventDate.getTime() + 20 * 86_400_000);
    const reasonData: Record<string, string> = eventCode === 'REQUEST_FOR_INFORMATION' ? { rfiReasonCode: dispute.reasonCode, rfiSchemeCode: dispute.schemeCode } : { chargebackReasonCode: dispute.reasonCode, chargebackSchemeCode: dispute.schemeCode };
    const additionalData: Record<string, string> = {
      ...(opens || eventCode === 'DISPUTE_DEFENSE_PERIOD_ENDED' ? reasonData : {}),
      ...(opens ? { defensePeriodEndsAt: ends.toISOString(), defendable: 'true', modificationMerchantReferences: '' } : {}),
      ...options.additionalData,
    };
    const withOriginal = options.originalReference ?? (opens || eventCode === 'DISPUTE_DEFENSE_PERIOD_ENDED');
    return this.item({
      eventCode,
      success: options.success ?? true,
      pspReference: dispute.pspReference,
      ...(withOriginal ? { originalReference: dispute.paymentPspReference } : {}),
      merchantReference: options.merchantReference ?? dispute.merchantReference,
      amount: dispute.amount,
      reason: dispute.reason,
      eventDate: eventDate.toISOString(),
      additionalData,
    });
  }

  /** The notification a modification earns (CAPTURE, CANCELLATION or REFUND). */
  modificationItem(modification: FakeModification, success = true): Record<string, unknown> {
    const eventCode = { capture: 'CAPTURE', cancel: 'CANCELLATION', refund: 'REFUND' }[modification.kind];
    const payment = this.payments.get(modification.paymentPspReference)!;
    return this.item({ eventCode, success, pspReference: modification.pspReference, originalReference: modification.paymentPspReference, merchantReference: modification.reference, amount: modification.amount ?? payment.amount, ...(success ? {} : { reason: 'Modification failed' }) });
  }

  /** Posts notification items to Colibri as Adyen does: one JSON batch; returns the answer. */
  async notify(target: string, items: readonly Record<string, unknown>[]): Promise<{ status: number; text: string }> {
    const response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ live: 'false', notificationItems: items }) });
    return { status: response.status, text: await response.text() };
  }
}

interface Route {
  kind: 'payment' | 'capture' | 'cancel' | 'refund' | 'dispute';
  model: string;
  /** The payment's pspReference for a modification; the operation's name for a Disputes API call. */
  psp: string;
}

function routeOf(path: string): Route | undefined {
  // Only under the Disputes API's own base: a dispute call sent to the Checkout override is not found.
  const dispute = /^\/ca\/services\/DisputeService\/v30\/(\w+)$/.exec(path);
  if (dispute && DISPUTE_OPERATIONS[dispute[1]!]) return { kind: 'dispute', model: DISPUTE_OPERATIONS[dispute[1]!]!, psp: dispute[1]! };
  if (/^\/v\d+\/payments$/.test(path)) return { kind: 'payment', model: 'PaymentRequest', psp: '' };
  const modification = /^\/v\d+\/payments\/([^/]+)\/(captures|cancels|refunds)$/.exec(path);
  if (!modification) return undefined;
  const kind = ({ captures: 'capture', cancels: 'cancel', refunds: 'refund' } as const)[modification[2] as 'captures' | 'cancels' | 'refunds'];
  const model = { capture: 'PaymentCaptureRequest', cancel: 'PaymentCancelRequest', refund: 'PaymentRefundRequest' }[kind];
  return { kind, model, psp: decodeURIComponent(modification[1]!) };
}
