import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import Ajv from 'ajv';
import type { FastifyBaseLogger } from 'fastify';
import { Type, type Static } from 'typebox';
import { merchantNow } from '../clock/merchant-clock';
import { firstDelivery, wakeWaitingJob } from '../connectors/operations';
import { receiptOf } from '../connectors/pix/pix-codes';
import { readPem } from '../connectors/pix/pix-connector';
import { recordDevolucoes } from '../connectors/pix/pix-returns';
import type { App, AppContext } from '../context';
import { ApiError } from '../http/errors';
import { standardErrorBody } from '../http/error-body';
import { chargeReference, paymentTokenOfTxid, pixIssuerFor, receivePix } from './pix-charges';

/** The standard's `Pix` as the webhook delivers it (fields Colibri reads; others are allowed). */
const Valor = Type.String({ pattern: '^\\d{1,10}\\.\\d{2}$' });
const Horario = Type.String({ maxLength: 64 });
const DevolucaoItem = Type.Object({
  id: Type.String({ pattern: '^[a-zA-Z0-9]{1,35}$' }),
  rtrId: Type.String({ pattern: '^[a-zA-Z0-9]{32}$' }),
  valor: Valor,
  // Any text: a `natureza` this Colibri does not know is an ordinary return, not a delivery to refuse.
  natureza: Type.Optional(Type.String({ maxLength: 40 })),
  descricao: Type.Optional(Type.String({ maxLength: 140 })),
  horario: Type.Optional(Type.Object({ solicitacao: Type.Optional(Horario), liquidacao: Type.Optional(Horario) })),
  status: Type.Union([Type.Literal('EM_PROCESSAMENTO'), Type.Literal('DEVOLVIDO'), Type.Literal('NAO_REALIZADO')]),
});
const PixItem = Type.Object({
  endToEndId: Type.String({ pattern: '^[a-zA-Z0-9]{32}$' }),
  txid: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9]{1,35}$' })),
  valor: Valor,
  horario: Type.String({ maxLength: 64 }),
  devolucoes: Type.Optional(Type.Array(DevolucaoItem, { maxItems: 100 })),
});
const WebhookPixBody = Type.Object({ pix: Type.Array(PixItem, { minItems: 1, maxItems: 1000 }) });
type PixNotification = Static<typeof PixItem>;

const validate = new Ajv({ allErrors: false }).compile(WebhookPixBody);
const BODY_LIMIT_BYTES = 1_048_576;

/**
 * Applies a `POST {webhookUrl}/pix` of the PSP: `{pix: [{endToEndId, txid, valor, horario, devolucoes}]}`.
 * 1. Every PIX with a txid must be a charge of Colibri's, for a merchant whose PIX connector issues
 *    charges; otherwise the whole delivery is refused (CONNECTOR_REFERENCE_UNKNOWN) and nothing is
 *    applied. A PIX without txid (paid to the key directly) is not a charge and is only recorded, once
 *    per state of its devoluções.
 * 2. Each PIX is applied to its payment (pix-charges.ts `receivePix`): a repeated or late delivery
 *    changes nothing that was applied.
 * 3. The devoluções of a PIX its payment was paid with are recorded with the delivery, in one
 *    transaction (connectors/pix/pix-returns.ts): a MED devolução DEVOLVIDO becomes a dispute notice
 *    (the disputes domain opens the dispute LOST and records the refund it is); one of Colibri's own in a
 *    final status settles its refund's record, unless a settled outcome is already on record (first
 *    settled wins, so the order of deliveries does not matter), and wakes the refund's settlement job.
 */
export async function applyPixNotifications(ctx: AppContext, body: unknown, log: Pick<FastifyBaseLogger, 'warn'>): Promise<{ applied: number; duplicates: number }> {
  if (!validate(body)) throw new ApiError('FIELD_FORMAT', `pix: not the standard's webhook body (${validate.errors?.[0]?.instancePath ?? ''} ${validate.errors?.[0]?.message ?? ''}).`.replace(' ).', ').'));
  const items = (body as Static<typeof WebhookPixBody>).pix;
  const targets: { item: PixNotification; merchantId: string; paymentToken: string; connectorId: string }[] = [];
  for (const item of items) {
    if (item.txid === undefined) continue;
    const paymentToken = paymentTokenOfTxid(item.txid);
    const payment = paymentToken ? await ctx.db.selectFrom('payments').select(['merchant_id', 'method']).where('payment_token', '=', paymentToken).executeTakeFirst() : undefined;
    const issuer = payment?.method === 'PIX' ? await pixIssuerFor(ctx, payment.merchant_id) : null;
    const charge = issuer && payment && paymentToken
      ? await ctx.db.selectFrom('connector_operations').select('reference').where('connector', '=', issuer.id).where('reference', '=', chargeReference(paymentToken)).where('merchant_id', '=', payment.merchant_id).executeTakeFirst()
      : undefined;
    if (!payment || !issuer || !paymentToken || !charge) {
      throw new ApiError('CONNECTOR_REFERENCE_UNKNOWN', `pix: txid ${item.txid} is not a charge of this Colibri; nothing was applied.`);
    }
    targets.push({ item, merchantId: payment.merchant_id, paymentToken, connectorId: issuer.id });
  }
  let applied = 0;
  let duplicates = 0;
  // A PIX is recorded once per state of its devoluções: a devolução that appears later (a MED) is news.
  const keyOf = (item: PixNotification) => `pix:${item.endToEndId}:${(item.devolucoes ?? []).map((d) => `${d.id}=${d.status}`).join(',')}`;
  for (const item of items.filter((i) => i.txid === undefined)) {
    if ((item.devolucoes ?? []).length > 0) log.warn({ end_to_end_id: item.endToEndId, devolucoes: item.devolucoes }, 'Devoluções of a PIX that is not a charge of Colibri: nothing to apply');
    if (await firstDelivery(ctx.db, 'pix', keyOf(item), item)) applied += 1;
    else duplicates += 1;
  }
  for (const { item, merchantId, paymentToken, connectorId } of targets) {
    const receipt = receiptOf(item);
    if (!receipt) throw new ApiError('FIELD_FORMAT', `pix: ${item.endToEndId} has no valid horario.`);
    const result = await receivePix(ctx, connectorId, merchantId, paymentToken, receipt);
    if (result === 'CLOSED' || result === 'AMOUNT_MISMATCH') {
      log.warn({ payment_token: paymentToken, end_to_end_id: item.endToEndId, result }, 'PIX received that Colibri does not apply; refund it at the PSP');
    }
    const payment = await ctx.db.selectFrom('payments').select(['end_to_end_id', 'currency']).where('payment_token', '=', paymentToken).where('merchant_id', '=', merchantId).executeTakeFirstOrThrow();
    const now = await merchantNow(ctx.db, merchantId);
    const { first, recorded } = await ctx.db.transaction().execute(async (trx) => {
      // Only the PIX the payment was paid with has returns that are the payment's (a MED included);
      // the devoluções of one Colibri did not apply are only kept with the delivery.
      const recorded = payment.end_to_end_id === item.endToEndId
        ? await recordDevolucoes(trx, { merchantId, paymentToken, currency: payment.currency, endToEndId: item.endToEndId }, connectorId, item.devolucoes ?? [], now)
        : null;
      for (const reference of recorded?.settled ?? []) await wakeWaitingJob(trx, reference);
      return { first: await firstDelivery(trx, 'pix', keyOf(item), item), recorded };
    });
    if (first) applied += 1;
    else duplicates += 1;
    if (first && recorded && recorded.unread.length > 0) {
      log.warn({ payment_token: paymentToken, end_to_end_id: item.endToEndId, devolucoes: recorded.unread }, 'Devoluções Colibri did not ask for that are not MED returns (made at the PSP, or not made): the payment does not show them');
    }
  }
  ctx.workerSignal.poke();
  return { applied, duplicates };
}

export interface PixWebhookOptions {
  host: string;
  port: number;
  cert: string;
  key: string;
  clientCa: string;
  /** SHA-256 fingerprints (upper-case hex with colons, as Node prints them) a client certificate must have; empty: any the CA issued. */
  fingerprints: readonly string[];
}

/** The webhook listener's options from the instance's settings, or null when COLIBRI_PIX_WEBHOOK_PORT is unset. */
export function pixWebhookOptions(ctx: Pick<AppContext, 'config'>): PixWebhookOptions | null {
  const env = ctx.config.connectorEnv;
  if (env.COLIBRI_PIX_WEBHOOK_PORT === undefined) return null;
  const port = Number(env.COLIBRI_PIX_WEBHOOK_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`COLIBRI_PIX_WEBHOOK_PORT must be a port number, got ${env.COLIBRI_PIX_WEBHOOK_PORT}`);
  const fingerprint = (value: string) => value.trim().toUpperCase().replace(/[^0-9A-F]/g, '').replace(/(..)(?!$)/g, '$1:');
  return {
    host: env.COLIBRI_PIX_WEBHOOK_HOST ?? ctx.config.host,
    port,
    cert: readPem(env.COLIBRI_PIX_WEBHOOK_CERT ?? '', 'COLIBRI_PIX_WEBHOOK_CERT'),
    key: readPem(env.COLIBRI_PIX_WEBHOOK_KEY ?? '', 'COLIBRI_PIX_WEBHOOK_KEY'),
    clientCa: readPem(env.COLIBRI_PIX_WEBHOOK_CLIENT_CA ?? '', 'COLIBRI_PIX_WEBHOOK_CLIENT_CA'),
    fingerprints: (env.COLIBRI_PIX_WEBHOOK_CLIENT_FINGERPRINTS ?? '').split(',').filter((f) => f.trim() !== '').map(fingerprint),
  };
}

export interface PixWebhookServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The HTTPS listener the PSP posts its `/pix` webhook to, apart from the API: mutual TLS, where the TLS
 * handshake itself refuses a client without a certificate the configured CA issued (and, with
 * fingerprints, any other certificate). It accepts `POST` to any path ending in `/pix` (the PSP appends
 * it to the registered webhookUrl) and answers 200 once the delivery is applied.
 */
export async function startPixWebhookServer(ctx: AppContext, options: PixWebhookOptions, log: FastifyBaseLogger): Promise<PixWebhookServer> {
  const server: Server = createServer(
    { cert: options.cert, key: options.key, ca: options.clientCa, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.2' },
    (request, response) => void handle(ctx, options, log, request, response),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function handle(ctx: AppContext, options: PixWebhookOptions, log: FastifyBaseLogger, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = new URL(request.url ?? '/', 'https://colibri.invalid').pathname;
  const answer = (status: number, body: unknown): void => void response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const refuse = (error: ApiError): void => answer(error.status, standardErrorBody({ status: error.status, message: error.message, path, items: error.items }));
  try {
    const certificate = (request.socket as TLSSocket).getPeerCertificate();
    if (options.fingerprints.length > 0 && !options.fingerprints.includes(certificate.fingerprint256)) {
      return refuse(new ApiError('CONNECTOR_CLIENT_CERTIFICATE', 'The client certificate is not one this listener accepts.'));
    }
    if (request.method !== 'POST' || !path.endsWith('/pix')) return refuse(new ApiError('NOT_FOUND', 'path: the PSP posts PIX notifications to {webhookUrl}/pix.'));
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > BODY_LIMIT_BYTES) return refuse(new ApiError('FIELD_FORMAT', 'pix: the body is too large.'));
      chunks.push(chunk as Buffer);
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return refuse(new ApiError('FIELD_FORMAT', 'pix: the body is not JSON.'));
    }
    const result = await applyPixNotifications(ctx, body, log);
    answer(200, result);
  } catch (error) {
    if (error instanceof ApiError) return refuse(error);
    log.error({ err: error }, 'PIX webhook failed');
    answer(500, standardErrorBody({ status: 500, message: 'Internal Server Error', path }));
  }
}

const servers = new WeakMap<App, () => PixWebhookServer | undefined>();

/** The webhook listener of an app, once it is ready (tests and the start banner read its port). */
export function pixWebhookServerOf(app: App): PixWebhookServer | undefined {
  return servers.get(app)?.();
}

/** Starts the listener with the app (a bad certificate or a busy port stops the start) and stops it with the app. */
export function registerPixWebhook(app: App, ctx: AppContext): void {
  const options = pixWebhookOptions(ctx);
  if (!options) return;
  let server: PixWebhookServer | undefined;
  servers.set(app, () => server);
  app.addHook('onReady', async () => {
    server = await startPixWebhookServer(ctx, options, app.log);
    app.log.info({ port: server.port }, 'PIX webhook listener (mutual TLS) started');
  });
  app.addHook('onClose', async () => {
    await server?.close();
  });
}
