import { sql, type Selectable } from 'kysely';
import { newWebhookSecret } from '../auth/secrets';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import type { WebhookEndpointsTable } from '../db/tables/webhooks';
import { ApiError } from '../http/errors';
import { isUuid } from '../lib/identifiers';
import { MAX_WEBHOOK_ENDPOINTS, type CreateEndpointInput, type UpdateEndpointInput, type WebhookEndpointResource } from './endpoint-schemas';
import { replaceSigningSecret } from './rotate-secret';

/**
 * The merchant's webhook endpoints (docs/callbacks.md, "Webhook endpoints"): URLs that receive every
 * event whose type they list, beside the notification URLs of each request. The fan-out that sends
 * them events is the events insert (events/outbox.ts); the worker signs each endpoint's callbacks with
 * the endpoint's own secrets (claim.ts). Every function here takes the caller's merchant and never
 * reads or changes another merchant's endpoint: another's id is not found.
 */

type EndpointRow = Selectable<WebhookEndpointsTable>;

const COLUMNS = ['id', 'url', 'description', 'enabled_events', 'enabled', 'created_at', 'updated_at'] as const;

function present(row: Pick<EndpointRow, (typeof COLUMNS)[number]>): WebhookEndpointResource {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    enabled_events: row.enabled_events as WebhookEndpointResource['enabled_events'],
    enabled: row.enabled,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** The filter as stored: each type once, in the order given; `*` alone when it is named. */
function normaliseFilter(types: readonly string[]): string[] {
  return types.includes('*') ? ['*'] : [...new Set(types)];
}

/**
 * `POST /webhooks/endpoints`: registers an endpoint with a new signing secret, answered only here.
 * The merchant row is locked while the endpoints are counted, so two creations at once cannot pass
 * the limit together.
 * @example const { id, webhook_secret } = await createEndpoint(ctx, merchantId, { url, enabled_events: ['*'] });
 */
export async function createEndpoint(ctx: AppContext, merchantId: string, input: CreateEndpointInput): Promise<WebhookEndpointResource & { webhook_secret: string }> {
  const secret = newWebhookSecret();
  const encrypted = ctx.secretBox.encrypt(secret);
  const row = await ctx.db.transaction().execute(async (trx) => {
    await trx.selectFrom('merchants').select('id').where('id', '=', merchantId).forUpdate().executeTakeFirstOrThrow();
    const { n } = await trx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('merchant_id', '=', merchantId)
      .executeTakeFirstOrThrow();
    if (Number(n) >= MAX_WEBHOOK_ENDPOINTS) throw new ApiError('WEBHOOK_ENDPOINT_LIMIT');
    const created = await trx
      .insertInto('webhook_endpoints')
      .values({
        merchant_id: merchantId,
        url: input.url,
        description: input.description ?? null,
        enabled_events: normaliseFilter(input.enabled_events),
        enabled: input.enabled ?? true,
      })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
    await replaceSigningSecret(trx, { merchantId, endpointId: created.id }, encrypted);
    return created;
  });
  return { ...present(row), webhook_secret: secret };
}

/** `GET /webhooks/endpoints`: the merchant's endpoints, oldest first. @example const { endpoints } = await listEndpoints(db, merchantId); */
export async function listEndpoints(db: Db, merchantId: string): Promise<{ endpoints: WebhookEndpointResource[] }> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(COLUMNS)
    .where('merchant_id', '=', merchantId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(MAX_WEBHOOK_ENDPOINTS)
    .execute();
  return { endpoints: rows.map(present) };
}

/** `GET /webhooks/endpoints/<id>`. @example const endpoint = await getEndpoint(db, merchantId, id); */
export async function getEndpoint(db: Db, merchantId: string, id: string): Promise<WebhookEndpointResource> {
  const row = isUuid(id) ? await db.selectFrom('webhook_endpoints').select(COLUMNS).where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst() : undefined;
  if (!row) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
  return present(row);
}

/**
 * `PATCH /webhooks/endpoints/<id>`: changes the fields given. A new URL applies to the callbacks still
 * pending too (they are sent to it, in their order); disabling gives up the pending ones, so a disabled
 * endpoint receives nothing more, and enabling resumes with the next event (an event from meanwhile can
 * be sent with `POST /webhooks/events/<id>/retry`).
 * @example await updateEndpoint(ctx.db, merchantId, id, { enabled: false });
 */
export async function updateEndpoint(db: Db, merchantId: string, id: string, input: UpdateEndpointInput): Promise<WebhookEndpointResource> {
  if (!isUuid(id)) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
  return db.transaction().execute(async (trx) => {
    const changed = await trx
      .updateTable('webhook_endpoints')
      .set({
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.enabled_events !== undefined ? { enabled_events: normaliseFilter(input.enabled_events) } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .where('merchant_id', '=', merchantId)
      .returning(COLUMNS)
      .executeTakeFirst();
    if (!changed) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
    if (input.url !== undefined) {
      await trx.updateTable('webhook_deliveries').set({ url: input.url }).where('merchant_id', '=', merchantId).where('endpoint_id', '=', id).where('status', '=', 'PENDING').execute();
    }
    if (input.enabled === false) await giveUpPending(trx, merchantId, id, 'not sent: the webhook endpoint was disabled');
    return present(changed);
  });
}

/**
 * `DELETE /webhooks/endpoints/<id>`: removes the endpoint and its secrets. Its deliveries stay in the
 * event log; those still pending are given up.
 * @example await deleteEndpoint(ctx.db, merchantId, id);
 */
export async function deleteEndpoint(db: Db, merchantId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
  await db.transaction().execute(async (trx) => {
    const deleted = await trx.deleteFrom('webhook_endpoints').where('id', '=', id).where('merchant_id', '=', merchantId).returning('id').executeTakeFirst();
    if (!deleted) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
    await giveUpPending(trx, merchantId, id, 'not sent: the webhook endpoint was deleted');
  });
}

/**
 * `POST /webhooks/endpoints/<id>/secret/rotate`: a new signing secret for the endpoint, answered only
 * here; the previous one keeps signing for 24 hours, as for the merchant's own secret (rotate-secret.ts).
 * @example const { webhook_secret } = await rotateEndpointSecret(ctx, merchantId, id);
 */
export async function rotateEndpointSecret(ctx: AppContext, merchantId: string, id: string): Promise<{ webhook_secret: string }> {
  if (!isUuid(id)) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
  const secret = newWebhookSecret();
  const encrypted = ctx.secretBox.encrypt(secret);
  await ctx.db.transaction().execute(async (trx) => {
    // Locks the endpoint, so concurrent rotations of one endpoint run one after the other.
    const endpoint = await trx.selectFrom('webhook_endpoints').select('id').where('id', '=', id).where('merchant_id', '=', merchantId).forUpdate().executeTakeFirst();
    if (!endpoint) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
    await replaceSigningSecret(trx, { merchantId, endpointId: id }, encrypted);
  });
  return { webhook_secret: secret };
}

/**
 * Ends the pending deliveries of an endpoint as failed. Their leases end too, so an attempt in flight
 * is only logged when it finishes, and does not bring its delivery back (record.ts updates a delivery
 * only for the worker that holds it).
 */
async function giveUpPending(trx: Db, merchantId: string, endpointId: string, reason: string): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'FAILED', failed_at: sql<Date>`now()`, last_error: reason, locked_by: null, locked_until: null })
    .where('merchant_id', '=', merchantId)
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'PENDING')
    .execute();
}
