import { sql } from 'kysely';
import type { Db } from '../db/database';
import { MAX_SIGNING_SECRETS, type StoredSecret } from './signing-secrets';

/** A delivery claimed for one attempt, with everything the attempt needs. */
export interface ClaimedDelivery {
  readonly id: bigint;
  readonly eventId: string;
  readonly merchantId: string;
  readonly url: string;
  /** This attempt's number (1 for the first). */
  readonly attempt: number;
  /** Failed attempts in a row before this one. */
  readonly backoffStep: number;
  readonly manual: boolean;
  readonly event: { type: string; createdAt: Date; data: unknown };
  /**
   * The signing secrets, newest first: the endpoint's for an endpoint's delivery (empty when the
   * endpoint was deleted), else the merchant's (empty until the creation secret is moved, signing-secrets.ts).
   */
  readonly secrets: readonly StoredSecret[];
  /** The webhook endpoint the delivery goes to, as it is now: null for a request's notification URL. */
  readonly endpoint: { readonly id: string; readonly enabled: boolean; readonly exists: boolean } | null;
}

interface ClaimRow {
  id: bigint;
  event_id: string;
  merchant_id: string;
  url: string;
  attempts: number;
  backoff_step: number;
  manual_retry: boolean;
  type: string;
  event_created_at: Date | string;
  data: unknown;
  secrets: StoredSecret[] | string | null;
  endpoint_id: string | null;
  endpoint_enabled: boolean | null;
  endpoint_url: string | null;
}

/**
 * Claims up to `limit` due deliveries for this worker in one statement. `for update skip locked`
 * lets any number of workers in any number of processes claim at once without waiting for each
 * other and without two of them taking one delivery. A claim is a lease: the row stays locked for
 * `leaseMs` (longer than an attempt can last), and a worker that dies holding it loses it then.
 * The event, the signing secrets and the endpoint's current state come back in the same round trip.
 * @example const deliveries = await claimDeliveries(db, worker.id, 64, 20_000);
 */
export async function claimDeliveries(db: Db, workerId: string, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  // The due rows are picked first (the partial index on next_attempt_at, stopping at `limit`), and
  // only those are joined with their events; a join written around the UPDATE lets the planner scan
  // every event instead.
  const result = await sql<ClaimRow>`
    with picked as (
      select id from webhook_deliveries d
      where status = 'PENDING' and next_attempt_at <= now() and (locked_until is null or locked_until < now())
        -- In order per resource and target (a URL, or a webhook endpoint whatever its URL was): an
        -- earlier delivery still pending (due, waiting or in flight) holds the later ones back until it
        -- is delivered or given up.
        and not exists (
          select 1 from webhook_deliveries e
          where e.resource_key = d.resource_key and (e.url = d.url or e.endpoint_id = d.endpoint_id) and e.status = 'PENDING' and e.id < d.id
        )
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    ), claimed as (
      update webhook_deliveries d
      set locked_by = ${workerId}, locked_until = now() + ${`${leaseMs} milliseconds`}::interval, attempts = d.attempts + 1
      from picked where d.id = picked.id
      returning d.id, d.event_id, d.merchant_id, d.url, d.attempts, d.backoff_step, d.manual_retry, d.endpoint_id
    ), signers as (
      -- One set of secrets per signer: the merchant (endpoint_id null) or one of its endpoints.
      select o.merchant_id, o.endpoint_id,
        (select coalesce(json_agg(json_build_object('key_id', s.key_id, 'secret_ciphertext', s.secret_ciphertext) order by s.created_at desc), '[]'::json)
           from (select key_id, secret_ciphertext, created_at from webhook_secrets
                 where merchant_id = o.merchant_id and endpoint_id is not distinct from o.endpoint_id and (expires_at is null or expires_at > now())
                 order by created_at desc limit ${MAX_SIGNING_SECRETS}) s) as secrets
      from (select distinct merchant_id, endpoint_id from claimed) o
    )
    select c.*, e.type, e.created_at as event_created_at, e.data, ss.secrets, w.enabled as endpoint_enabled, w.url as endpoint_url
    from claimed c join events e on e.id = c.event_id
    join signers ss on ss.merchant_id = c.merchant_id and ss.endpoint_id is not distinct from c.endpoint_id
    left join webhook_endpoints w on w.id = c.endpoint_id and w.merchant_id = c.merchant_id`.execute(db);
  return result.rows.map((row) => ({
    id: BigInt(row.id),
    eventId: row.event_id,
    merchantId: row.merchant_id,
    // An endpoint's delivery goes to the endpoint's URL of now, should it have changed since the event.
    url: row.endpoint_url ?? row.url,
    attempt: row.attempts,
    backoffStep: row.backoff_step,
    manual: row.manual_retry,
    event: { type: row.type, createdAt: new Date(row.event_created_at), data: row.data },
    secrets: typeof row.secrets === 'string' ? (JSON.parse(row.secrets) as StoredSecret[]) : (row.secrets ?? []),
    endpoint: row.endpoint_id === null ? null : { id: row.endpoint_id, enabled: row.endpoint_enabled === true, exists: row.endpoint_enabled !== null },
  }));
}

/**
 * Renews the leases of deliveries this worker is attempting (`leaseMs`), or ends them (`null`) so
 * another worker takes them at once.
 * @example await setDeliveryLeases(db, worker.id, inFlight, 20_000);
 */
export async function setDeliveryLeases(db: Db, workerId: string, deliveries: readonly ClaimedDelivery[], leaseMs: number | null): Promise<void> {
  const ids = deliveries.map((d) => String(d.id));
  await sql`
    update webhook_deliveries set
      locked_until = ${leaseMs === null ? sql`null` : sql`now() + ${`${leaseMs} milliseconds`}::interval`},
      locked_by = ${leaseMs === null ? null : workerId}
    where locked_by = ${workerId} and status = 'PENDING' and id = any(${ids}::bigint[])`.execute(db);
}

/**
 * Ends the leases of workers that are gone. Only for PGlite, which one process holds at a time: a
 * lease there that no worker of this process holds belongs to a process that is gone (killed
 * mid-attempt), and its deliveries can be retried now instead of when the lease would run out.
 * @example if (ctx.engine === 'pglite') await releaseDeadLeases(ctx.db, [worker.id]);
 */
export async function releaseDeadLeases(db: Db, liveWorkerIds: readonly string[]): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ locked_by: null, locked_until: null })
    .where('status', '=', 'PENDING')
    .where('locked_by', 'is not', null)
    .where('locked_by', 'not in', [...liveWorkerIds, ''])
    .execute();
}
