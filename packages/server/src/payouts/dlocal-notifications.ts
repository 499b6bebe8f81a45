import { createHash } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App, AppContext } from '../context';
import { DlocalConnector } from '../connectors/dlocal/dlocal-connector';
import type { DlocalPayout } from '../connectors/dlocal/dlocal-codes';
import { firstDelivery } from '../connectors/operations';
import { ApiError } from '../http/errors';
import { errorResponses } from '../http/schema-kit';
import { isUuid } from '../lib/identifiers';
import { OUTCOME_CODES } from '../processor/outcome-codes';
import { returnPayout, settlePayout } from './process-payout';

/** What Colibri answers dLocal: whether the message changed a payout, or was one it had already applied. */
export interface DlocalNotificationAnswer {
  readonly applied: boolean;
  readonly duplicate: boolean;
}

/** The dLocal accounts whose signature a notification may carry: the instance's and merchants' own. */
async function dlocalAccounts(ctx: AppContext): Promise<DlocalConnector[]> {
  const all = [...ctx.connectors.instanceConnectors(), ...(await ctx.connectors.merchantConnectorsOf('dlocal'))];
  return all.filter((connector): connector is DlocalConnector => connector instanceof DlocalConnector);
}

/**
 * Applies one notification dLocal posted about a payout, in phases:
 *
 * 1. its signature (`Authorization: V2-HMAC-SHA256, Signature: …` over `X-Login + X-Date + body`, under the
 *    account's secret key) must verify with one of Colibri's dLocal accounts, the instance's or a merchant's
 *    own; otherwise nothing is read (401);
 * 2. its `external_id` must be a payout of this Colibri sent through dLocal (422 otherwise), and the signature
 *    must be that of the account serving the payout's merchant (401 otherwise: a merchant's own account cannot
 *    speak for another merchant's payouts);
 * 3. in one transaction: the message is recorded once (its key is dLocal's payout id, status and status
 *    code, so a repeated delivery is a no-op), its outcome goes into the connector's books (where the first
 *    final outcome wins), and the payout moves: PAID, REJECTED or CANCELED from PROCESSING; a REJECTED for
 *    a payout already PAID is a return (PAID → REJECTED, `PAYOUT_RETURNED`). A PENDING, DELIVERED or on-hold
 *    status, or a message older than what was applied, changes nothing.
 * @example await applyDlocalNotification(ctx, { login, date, authorization }, rawBody)
 */
export async function applyDlocalNotification(
  ctx: AppContext,
  headers: { login?: string | undefined; date?: string | undefined; authorization?: string | undefined },
  rawBody: string,
): Promise<DlocalNotificationAnswer> {
  if (!(await dlocalAccounts(ctx)).some((connector) => connector.verifies(headers, rawBody))) throw new ApiError('CONNECTOR_SIGNATURE_INVALID', "The notification's signature does not verify with any dLocal account of this Colibri; nothing was applied.");
  const payout = JSON.parse(rawBody) as DlocalPayout;
  const txId = typeof payout.external_id === 'string' ? payout.external_id : '';
  const row = isUuid(txId) ? await ctx.db.selectFrom('payout_dispatches').select(['merchant_id', 'connector']).where('tx_id', '=', txId).executeTakeFirst() : undefined;
  const serving = row?.connector === 'dlocal' ? await ctx.connectors.connectorFor(row.merchant_id, 'PAYOUT') : undefined;
  const owner = row && serving instanceof DlocalConnector ? row : undefined;
  if (!owner || !(serving instanceof DlocalConnector)) throw new ApiError('CONNECTOR_REFERENCE_UNKNOWN', 'external_id: names no payout this Colibri sent through dLocal; nothing was applied.');
  // Only the account that pays the merchant's payouts speaks for them: another merchant's own account cannot.
  if (!serving.verifies(headers, rawBody)) throw new ApiError('CONNECTOR_SIGNATURE_INVALID', "The notification is not signed by the dLocal account that sent this payout; nothing was applied.");

  const key = `${payout.id ?? txId}:${payout.status ?? ''}:${payout.status_code ?? ''}`;
  const answer = await ctx.db.transaction().execute(async (trx) => {
    if (!(await firstDelivery(trx, 'dlocal', key, { external_id: txId, status: payout.status ?? null, status_code: payout.status_code ?? null, body_sha256: createHash('sha256').update(rawBody).digest('hex') }))) {
      return { applied: false, duplicate: true };
    }
    const { outcome, recorded } = await serving.recordNotification(owner.merchant_id, payout, trx);
    if (outcome.status === 'DECLINED' && outcome.code !== 'CANCELED' && (await returnPayout(trx, txId, OUTCOME_CODES.PAYOUT_RETURNED))) {
      return { applied: true, duplicate: false };
    }
    // The books' outcome, not the message's: an older message never undoes a newer one.
    if (recorded.status === 'PENDING') return { applied: false, duplicate: false };
    return { applied: await settlePayout(trx, txId, recorded), duplicate: false };
  });
  return answer;
}

/** `POST /connectors/dlocal/notifications`: the raw body is kept, since the signature covers it byte for byte. */
export async function registerDlocalNotificationRoutes(app: App, ctx: AppContext): Promise<void> {
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/connectors/dlocal/notifications',
      {
        config: { auth: 'public' },
        schema: {
          summary: "dLocal's payout notifications",
          description: 'Verified with the secret key of the dLocal account serving the payout (Authorization over X-Login, X-Date and the body), recorded once per message, applied to its payout (docs/connectors.md, "dLocal").',
          tags: ['Connectors'],
          response: { 200: Type.Object({ applied: Type.Boolean(), duplicate: Type.Boolean() }), ...errorResponses(400, 401, 422) },
        },
      },
      async (request) => {
        const raw = typeof request.body === 'string' ? request.body : '';
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          parsed = undefined;
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ApiError('FIELD_TYPE', 'body: must be a JSON object (a dLocal payout).');
        const header = (name: string) => {
          const value = request.headers[name];
          return Array.isArray(value) ? value[0] : value;
        };
        return applyDlocalNotification(ctx, { login: header('x-login'), date: header('x-date'), authorization: header('authorization') }, raw);
      },
    );
  });
}
