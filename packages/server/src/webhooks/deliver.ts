import type { Agent } from 'undici';
import type { AppContext } from '../context';
import { retryDelayMs, type RetrySchedule } from '../jobs/backoff';
import type { ClaimedDelivery } from './claim';
import type { OutboundGuard } from './outbound-guard';
import { callbackBody } from './payload';
import { postCallback } from './post-callback';
import type { AttemptResult } from './record';
import { signCallback } from './sign';
import { activeSecrets, adoptCreationSecret, revealSecret, type StoredSecret } from './signing-secrets';

export interface DeliverDeps {
  readonly ctx: AppContext;
  readonly agent: Agent;
  readonly guard: OutboundGuard;
  readonly schedule: RetrySchedule;
  readonly timeoutMs: number;
  readonly userAgent: string;
  /** Creation secrets being moved into custody, by merchant, so one burst of callbacks moves each once. */
  readonly adopting: Map<string, Promise<readonly StoredSecret[]>>;
}

/**
 * Makes one attempt of a claimed delivery: builds the body, signs it with every secret that signs now
 * for its target (the webhook endpoint's, or the merchant's for a notification URL), POSTs it and
 * describes the outcome. It does not write anything; the worker
 * records the result (record.ts). A 2xx answer is a delivery; anything else is a failure. Every
 * failure becomes a result rather than an exception, so each attempt is recorded and scheduled: an
 * attempt that threw would leave its delivery to be retried only when its lease ran out, with no
 * backoff and no trace in the log.
 * @example const result = await deliver(deps, claimed); // { delivered: true, responseStatus: 204, latencyMs: 3, … }
 */
export async function deliver(deps: DeliverDeps, claimed: ClaimedDelivery): Promise<AttemptResult> {
  const startedAt = new Date();
  const base = {
    deliveryId: claimed.id,
    merchantId: claimed.merchantId,
    eventId: claimed.eventId,
    attempt: claimed.attempt,
    manual: claimed.manual,
    startedAt,
    retryDelayMs: retryDelayMs(deps.schedule, claimed.backoffStep + 1),
  };
  if (claimed.endpoint && !claimed.endpoint.enabled) {
    // Disabled or deleted since the event was recorded (a change that committed while the event's
    // statement ran): nothing is sent, and the delivery is given up now.
    const error = claimed.endpoint.exists ? 'not sent: the webhook endpoint is disabled' : 'not sent: the webhook endpoint was deleted';
    return { ...base, latencyMs: 0, responseStatus: null, error, delivered: false, permanent: true };
  }
  let secrets: string[];
  try {
    secrets = (await secretsOf(deps, claimed)).map((s) => revealSecret(deps.ctx.secretBox, s));
  } catch (error) {
    // A secret that cannot be decrypted (a process without the master key it was stored under) is a
    // configuration fault: nothing is sent unsigned, and the attempt is retried like any failure.
    const message = `signing secret unavailable: ${error instanceof Error ? error.message : String(error)}`;
    return { ...base, latencyMs: 0, responseStatus: null, error: message, delivered: false, permanent: false };
  }
  if (secrets.length === 0) {
    return { ...base, latencyMs: 0, responseStatus: null, error: `signing secret unavailable: the ${claimed.endpoint ? 'webhook endpoint' : 'merchant'} has none`, delivered: false, permanent: false };
  }
  const body = callbackBody({ id: claimed.eventId, ...claimed.event });
  let headers: Record<string, string>;
  try {
    headers = { 'content-type': 'application/json', 'user-agent': deps.userAgent, ...signCallback(secrets, claimed.eventId, startedAt, body) };
  } catch (error) {
    // A stored secret that is not valid base64 cannot sign; like a missing key, it is recorded and retried.
    const message = `signing failed: ${error instanceof Error ? error.message : String(error)}`;
    return { ...base, latencyMs: 0, responseStatus: null, error: message, delivered: false, permanent: false };
  }
  const posted = await postCallback({ agent: deps.agent, guard: deps.guard, url: claimed.url, headers, body, timeoutMs: deps.timeoutMs });
  const delivered = posted.status !== null && posted.status >= 200 && posted.status < 300;
  return { ...base, latencyMs: posted.latencyMs, responseStatus: posted.status, error: posted.error, delivered, permanent: posted.permanent };
}

async function secretsOf(deps: DeliverDeps, claimed: ClaimedDelivery): Promise<readonly StoredSecret[]> {
  // An endpoint's secrets are made with it: there is no creation secret to move.
  if (claimed.secrets.length > 0 || claimed.endpoint) return claimed.secrets;
  let adoption = deps.adopting.get(claimed.merchantId);
  if (!adoption) {
    const { ctx } = deps;
    adoption = ctx.db
      .transaction()
      .execute((trx) => adoptCreationSecret(trx, ctx.secretBox, claimed.merchantId))
      .then(() => activeSecrets(ctx.db, claimed.merchantId))
      .finally(() => deps.adopting.delete(claimed.merchantId));
    deps.adopting.set(claimed.merchantId, adoption);
  }
  return adoption;
}
