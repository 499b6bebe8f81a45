import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { callbackBody } from './payload';

/** How often an open stream looks for new events. */
const POLL_MS = 250;
/**
 * How far back each look reaches. An event's created_at is its transaction's start, so a transaction
 * that began earlier can commit after a later one was already streamed; looking back this far, and
 * remembering what was sent, streams such an event too, once.
 */
const LOOKBACK_MS = 10_000;
/** A comment line keeps proxies and idle-timeouts from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;
/** Events sent per look at most; the rest follow on the next look. */
const BATCH = 200;

export interface StreamOptions {
  /** Events created at or after this instant; the default is the moment the stream opens. */
  since?: Date | undefined;
  /** True once the service is shutting down: open streams end so that it can. */
  closing: () => boolean;
}

/**
 * `GET /webhooks/events/stream`: the merchant's events as server-sent events, each `data:` line the
 * callback body `{id, type, created_at, data}` exactly as it would be signed and posted. The stream
 * is built on the event log (the outbox), not on callback delivery, so it shows every event whether
 * or not a notification URL was given. It ends when the access token expires; the client reconnects
 * with a new token and `Last-Event-ID` (each event's `id:` is the time it was created), and may see
 * the events of the last few seconds again: like callbacks, the stream is at least once, keyed by
 * event id.
 * @example curl -N -H "X-Auth-Token: $TOKEN" "$BASE/webhooks/events/stream"
 */
export async function streamEvents(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, merchantId: string, options: StreamOptions): Promise<void> {
  const token = String(request.headers['x-auth-token'] ?? '');
  reply.hijack();
  const out = reply.raw;
  out.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-request-id': request.id,
    // Proxies that buffer answers would hold events back.
    'x-accel-buffering': 'no',
  });
  out.write(': colibri event stream\nretry: 1000\n\n');

  let open = true;
  request.raw.on('close', () => {
    open = false;
  });
  let from = options.since ?? new Date();
  /** Nothing older than the start asked for is sent, whatever the look-back. */
  const floor = from.getTime();
  /** Ids sent, with their creation time in ms, forgotten once older than the look-back. */
  const sent = new Map<string, number>();
  let lastBeat = Date.now();
  let lastTokenCheck = Date.now();

  while (open && !out.destroyed && !options.closing()) {
    if (Date.now() - lastTokenCheck >= 5_000) {
      lastTokenCheck = Date.now();
      // A stream lives no longer than its token: a disabled merchant's or an expired token ends it.
      if ((await ctx.tokens.verify(token)) === null) break;
    }
    const rows = await ctx.db
      .selectFrom('events')
      .select(['id', 'type', 'created_at', 'data'])
      .where('merchant_id', '=', merchantId)
      .where('created_at', '>=', new Date(Math.max(floor, from.getTime() - LOOKBACK_MS)))
      .orderBy('created_at')
      .orderBy('id')
      .limit(BATCH + sent.size)
      .execute();
    let wrote = 0;
    for (const row of rows) {
      if (sent.has(row.id)) continue;
      sent.set(row.id, row.created_at.getTime());
      out.write(`id: ${row.created_at.toISOString()}\nevent: ${row.type}\ndata: ${callbackBody({ id: row.id, type: row.type, createdAt: row.created_at, data: row.data })}\n\n`);
      if (row.created_at > from) from = row.created_at;
      if (++wrote >= BATCH) break;
    }
    for (const [id, at] of sent) if (at < from.getTime() - LOOKBACK_MS) sent.delete(id);
    if (wrote === 0 && Date.now() - lastBeat >= HEARTBEAT_MS) {
      out.write(': keep-alive\n\n');
      lastBeat = Date.now();
    }
    if (wrote > 0) lastBeat = Date.now();
    if (wrote < BATCH) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  if (!out.destroyed) out.end();
}
