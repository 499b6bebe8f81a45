import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { FastifyRequest } from 'fastify';
import type { App, AppContext } from '../context';
import type { Db } from '../db/database';
import { isDatabaseUnavailable } from '../db/database-errors';
import { ApiError } from './errors';

/** Contract: "Keys live 24 hours." */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a duplicate waits for the first request with its key to finish before answering 409. */
const WAIT_FOR_FIRST_MS = 10_000;
const POLL_MS = 25;
/** How long an answer waits for the database to keep it (the time a failover takes) before it is sent unkept. */
const KEEP_ANSWER_MS = 20_000;
/** Stored answers are encrypted (they may hold a new API or webhook secret); the marker tells them apart. */
const SEALED = 'sealed:v1:';

interface Claim {
  readonly scope: string;
  readonly key: string;
  readonly owner: string;
  readonly renewal: NodeJS.Timeout;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: Claim | null;
  }
  interface FastifyContextConfig {
    /**
     * The route's effect is keyed by the content it streams (a reconciliation report, by its SHA-256),
     * which the route reads itself: an Idempotency-Key adds nothing and its body could not be hashed here.
     */
    keyedByContent?: boolean;
  }
}

/**
 * `Idempotency-Key` on every POST. The first request with a key claims it with an insert (the
 * primary key makes the claim atomic on both engines); its answer is stored, encrypted, when it is
 * sent. A later request with the same key and body replays that answer (with a fresh refresh_token);
 * with another body it gets 422. A duplicate that arrives while the first is still running waits for
 * it, so concurrent retries have one effect. Server faults (5xx) release the key so the client can retry.
 *
 * A claim is a lease of a few seconds (`COLIBRI_IDEMPOTENCY_LEASE_MS`), renewed while its request runs.
 * When the process holding it dies, the lease lapses and a retry takes the key over and runs the request
 * again. What the first run committed is found, not repeated: the operations that create money
 * movements store the key with their effect (a payment's or a refund's `idempotency_key`, unique per
 * merchant), so the rerun answers with that payment or refund. Only the current owner of a claim may
 * store its answer.
 */
export function installIdempotency(app: App, ctx: AppContext): void {
  const leaseMs = ctx.config.work.idempotencyLeaseMs;
  app.decorateRequest('idempotencyClaim', null);

  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || request.routeOptions.config?.keyedByContent) return;
    const key = request.headers['idempotency-key'];
    if (key === undefined) return;
    if (typeof key !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(key)) throw new ApiError('IDEMPOTENCY_KEY_INVALID');
    const scope = scopeOf(request);
    const requestHash = hashRequest(ctx, request);
    const owner = randomUUID();
    const deadline = Date.now() + Math.max(WAIT_FOR_FIRST_MS, leaseMs * 2);
    for (;;) {
      if ((await claim(ctx.db, scope, key, requestHash, owner, leaseMs)) || (await takeOver(ctx.db, scope, key, requestHash, owner, leaseMs))) {
        request.idempotencyClaim = { scope, key, owner, renewal: renewWhileRunning(ctx.db, scope, key, owner, leaseMs) };
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
        const body = await freshen(ctx, request, open(ctx, row.response_body));
        return reply
          .code(row.response_status)
          .header('idempotent-replayed', 'true')
          .type(row.response_content_type ?? 'application/json')
          .send(body);
      }
      if (Date.now() > deadline) throw new ApiError('IDEMPOTENCY_KEY_IN_PROGRESS');
      await sleep(POLL_MS);
    }
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const claimed = request.idempotencyClaim;
    if (!claimed) return done(null, payload);
    request.idempotencyClaim = null;
    // The answer is kept before it is sent, so a retry replays it. While the database is away (a failover)
    // keeping it is tried again, the lease still renewed, for up to KEEP_ANSWER_MS: a payment answered
    // PROCESSING during a failover must replay PROCESSING, not the PAID a rerun would find by then.
    // After that the answer goes out anyway: failing it here would replace an answer, perhaps of money
    // that moved, with a framework error. The lease then lapses, and a retry finds the effect by the key
    // stored with it (a payment's, a refund's), in its status of the moment.
    keepAnswer(claimed, reply.statusCode, payload, String(reply.getHeader('content-type') ?? 'application/json')).then(
      () => done(null, payload),
      (error: Error) => {
        request.log.warn({ err: error, idempotencyKey: claimed.key }, 'the answer of an idempotency key was not kept');
        done(null, payload);
      },
    ).finally(() => clearInterval(claimed.renewal));
  });

  // A request that ends without an answer (the client went away mid-handler) stops renewing; its
  // lease lapses and a retry takes the key over.
  app.addHook('onResponse', async (request) => {
    if (request.idempotencyClaim) clearInterval(request.idempotencyClaim.renewal);
  });

  /** `store`, tried again while the database is unavailable, for up to KEEP_ANSWER_MS. */
  async function keepAnswer(claimed: Claim, statusCode: number, payload: unknown, contentType: string): Promise<void> {
    const giveUpAt = Date.now() + KEEP_ANSWER_MS;
    for (let pause = 50; ; pause = Math.min(pause * 2, 1_000)) {
      try {
        return await store(claimed, statusCode, payload, contentType);
      } catch (error) {
        if (!isDatabaseUnavailable(error) || Date.now() + pause > giveUpAt) throw error;
        await sleep(pause);
      }
    }
  }

  /** Keeps the answer of a claimed key for replay; an answer that cannot be replayed frees the key. */
  async function store(claimed: Claim, statusCode: number, payload: unknown, contentType: string): Promise<void> {
    // Only the claim's current owner may store or release it: another retry may have taken it over.
    const ours = { scope: claimed.scope, key: claimed.key, owner: claimed.owner };
    if (statusCode >= 500 || typeof payload !== 'string') {
      await ctx.db.deleteFrom('idempotency_keys').where((eb) => eb.and(ours)).execute();
      return;
    }
    await ctx.db
      .updateTable('idempotency_keys')
      .set({ state: 'COMPLETED', response_status: statusCode, response_body: seal(ctx, payload), response_content_type: contentType, lease_until: null })
      .where((eb) => eb.and(ours))
      .execute();
  }
}

async function claim(db: Db, scope: string, key: string, requestHash: string, owner: string, leaseMs: number): Promise<boolean> {
  const now = new Date();
  // Expired keys are deleted lazily, just before a claim could collide with them.
  await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key).where('expires_at', '<', now).execute();
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({
      scope,
      key,
      request_hash: requestHash,
      state: 'IN_PROGRESS',
      response_status: null,
      response_body: null,
      response_content_type: null,
      expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      lease_until: new Date(now.getTime() + leaseMs),
      owner,
    })
    .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Takes over a claim whose lease lapsed: its process died (or stopped renewing) before answering. One
 * statement decides between several retries racing for it. The database's clock judges the lease.
 */
async function takeOver(db: Db, scope: string, key: string, requestHash: string, owner: string, leaseMs: number): Promise<boolean> {
  const taken = await sql<{ key: string }>`
    update idempotency_keys
    set owner = ${owner}, lease_until = now() + ${`${leaseMs} milliseconds`}::interval
    where scope = ${scope} and key = ${key} and request_hash = ${requestHash} and state = 'IN_PROGRESS'
      and coalesce(lease_until, created_at + ${`${leaseMs} milliseconds`}::interval) < now()
    returning key`.execute(db);
  return taken.rows.length > 0;
}

/** Renews a claim's lease every third of it while its request runs. */
function renewWhileRunning(db: Db, scope: string, key: string, owner: string, leaseMs: number): NodeJS.Timeout {
  const timer = setInterval(() => {
    sql`update idempotency_keys set lease_until = now() + ${`${leaseMs} milliseconds`}::interval
        where scope = ${scope} and key = ${key} and owner = ${owner} and state = 'IN_PROGRESS'`
      .execute(db)
      .catch(() => undefined); // a renewal lost to a database fault only shortens the lease
  }, Math.max(10, Math.floor(leaseMs / 3)));
  timer.unref();
  return timer;
}

function seal(ctx: AppContext, body: string): string {
  const { keyId, ciphertext } = ctx.secretBox.encrypt(body);
  return `${SEALED}${keyId}:${ciphertext}`;
}

function open(ctx: AppContext, stored: string): string {
  if (!stored.startsWith(SEALED)) return stored;
  const rest = stored.slice(SEALED.length);
  const colon = rest.indexOf(':');
  return ctx.secretBox.decrypt(rest.slice(0, colon), rest.slice(colon + 1));
}

/**
 * A replayed answer carries a refresh_token minted now: the stored one may have expired since (tokens
 * live 5 minutes, answers 24 hours).
 */
async function freshen(ctx: AppContext, request: FastifyRequest, body: string): Promise<string> {
  if (!request.principal || !body.includes('"refresh_token"')) return body;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed !== 'object' || parsed === null || !('refresh_token' in parsed)) return body;
    return JSON.stringify({ ...parsed, refresh_token: await ctx.tokens.issue(request.principal) });
  } catch {
    return body;
  }
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
  return ctx.secretBox.keyedDigest('idempotency', `${request.method}\n${request.url}\n${JSON.stringify(request.body ?? null)}`);
}

/**
 * The Idempotency-Key a request claimed, for operations that store it with their effect (a payment's
 * or a refund's `idempotency_key`), so a rerun after a crash finds that effect.
 * @example const key = idempotencyKeyOf(request); await sendPayment(ctx, merchantId, body, { idempotencyKey: key });
 */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  return request.idempotencyClaim?.key;
}

/** Deletes keys past their 24 hours; called periodically by the service. @example await purgeExpiredIdempotencyKeys(db) */
export async function purgeExpiredIdempotencyKeys(db: Db): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<', new Date()).executeTakeFirst();
  return Number(result.numDeletedRows);
}
