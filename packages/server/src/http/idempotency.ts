import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyRequest } from 'fastify';
import type { App, AppContext } from '../context';
import type { Db } from '../db/database';
import { ApiError } from './errors';

/** Contract: "Keys live 24 hours." */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a duplicate waits for the first request with its key to finish before answering 409. */
const WAIT_FOR_FIRST_MS = 10_000;
const POLL_MS = 25;

interface Claim {
  readonly scope: string;
  readonly key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: Claim | null;
  }
}

/**
 * `Idempotency-Key` on every POST. The first request with a key claims it with an insert (the
 * primary key makes the claim atomic on both engines); its answer is stored when it is sent. A later
 * request with the same key and body replays that answer; with another body it gets 422. A duplicate
 * that arrives while the first is still running waits for it, so concurrent retries have one effect.
 * Server faults (5xx) release the key so the client can retry.
 */
export function installIdempotency(app: App, ctx: AppContext): void {
  app.decorateRequest('idempotencyClaim', null);

  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST') return;
    const key = request.headers['idempotency-key'];
    if (key === undefined) return;
    if (typeof key !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(key)) throw new ApiError('IDEMPOTENCY_KEY_INVALID');
    const scope = scopeOf(request);
    const requestHash = hashRequest(ctx, request);
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      if (await claim(ctx.db, scope, key, requestHash)) {
        request.idempotencyClaim = { scope, key };
        return;
      }
      const row = await ctx.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('scope', '=', scope)
        .where('key', '=', key)
        .executeTakeFirst();
      if (!row) continue; // released or expired between our insert and select: try to claim again
      if (row.request_hash !== requestHash) throw new ApiError('IDEMPOTENCY_KEY_REUSED');
      if (row.state === 'COMPLETED' && row.response_status !== null && row.response_body !== null) {
        return reply
          .code(row.response_status)
          .header('idempotent-replayed', 'true')
          .type(row.response_content_type ?? 'application/json')
          .send(row.response_body);
      }
      if (Date.now() > deadline) throw new ApiError('IDEMPOTENCY_KEY_IN_PROGRESS');
      await sleep(POLL_MS);
    }
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const claimed = request.idempotencyClaim;
    if (!claimed) return done(null, payload);
    request.idempotencyClaim = null;
    store(claimed, reply.statusCode, payload, String(reply.getHeader('content-type') ?? 'application/json')).then(
      () => done(null, payload),
      (error: Error) => done(error),
    );
  });

  /** Keeps the answer of a claimed key for replay; an answer that cannot be replayed frees the key. */
  async function store(claimed: Claim, statusCode: number, payload: unknown, contentType: string): Promise<void> {
    const where = ctx.db
      .updateTable('idempotency_keys')
      .where('scope', '=', claimed.scope)
      .where('key', '=', claimed.key);
    if (statusCode >= 500 || typeof payload !== 'string') {
      await ctx.db.deleteFrom('idempotency_keys').where('scope', '=', claimed.scope).where('key', '=', claimed.key).execute();
      return;
    }
    await where.set({ state: 'COMPLETED', response_status: statusCode, response_body: payload, response_content_type: contentType }).execute();
  }
}

async function claim(db: Db, scope: string, key: string, requestHash: string): Promise<boolean> {
  const now = new Date();
  // Expired keys are deleted lazily, just before a claim could collide with them.
  await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key).where('expires_at', '<', now).execute();
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({ scope, key, request_hash: requestHash, state: 'IN_PROGRESS', response_status: null, response_body: null, response_content_type: null, expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS) })
    .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Keys are per merchant; admin and public routes have scopes of their own. */
function scopeOf(request: FastifyRequest): string {
  if (request.principal) return `merchant:${request.principal.merchantId}`;
  return `${request.routeOptions.config?.auth ?? 'public'}:${request.routeOptions.url ?? ''}`;
}

/**
 * The method, route and body decide whether a retry is "the same request". Bodies may hold card
 * numbers and CVVs, so the fingerprint is keyed with a secret outside the database (a plain hash of a
 * card body could be brute-forced from the rest of the row).
 */
function hashRequest(ctx: AppContext, request: FastifyRequest): string {
  return ctx.cardCipher.keyedDigest('idempotency', `${request.method}\n${request.url}\n${JSON.stringify(request.body ?? null)}`);
}

/** Deletes keys past their 24 hours; called periodically by the service. @example await purgeExpiredIdempotencyKeys(db) */
export async function purgeExpiredIdempotencyKeys(db: Db): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<', new Date()).executeTakeFirst();
  return Number(result.numDeletedRows);
}
