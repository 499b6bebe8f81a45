import type { Colibri} from '../../../sdk/src/index';
import { signCallback, type CallbackEvent } from '../../../sdk/src/index';

export interface ListenOptions {
  forwardTo: string;
  webhookSecret: string;
  /** Only these event types (all when empty). */
  types: readonly string[];
  since?: Date | undefined;
  signal: AbortSignal;
  /** Where each forwarded event is reported (stdout), and the status lines (stderr). */
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * `colibri listen`: follows the merchant's event stream and posts each event to a local URL, signed
 * with the merchant's webhook secret exactly as Colibri signs a callback (Standard Webhooks), so the
 * receiver's verification code runs unchanged. It reads the event log, not callback delivery: every
 * event is forwarded whether or not a notification URL was set, and nothing changes on the service.
 * It returns as soon as `signal` aborts: while an event is being forwarded, and while the stream waits to
 * reconnect to a service that stopped.
 */
export async function listen(colibri: Colibri, options: ListenOptions): Promise<void> {
  const merchant = await colibri.merchant({ signal: options.signal });
  const since = options.since ?? new Date();
  options.err(`Ready: forwarding the events of merchant ${merchant.merchant_id} (${merchant.name}) to ${options.forwardTo}. Ctrl-C to stop.`);
  for await (const event of colibri.events.stream({ since, signal: options.signal })) {
    if (options.types.length > 0 && !options.types.includes(event.type)) continue;
    options.out(await forward(event, options));
  }
}

async function forward(event: CallbackEvent, options: ListenOptions): Promise<string> {
  const body = JSON.stringify(event);
  const headers = { 'content-type': 'application/json', 'user-agent': 'colibri-listen', ...signCallback(options.webhookSecret, event.id, new Date(), body) };
  const started = Date.now();
  const status = event.type === 'refund.status_changed' ? event.data.refund_status : event.data.status;
  const describe = `${event.created_at}  ${event.type.padEnd(36)} ${String(status ?? '').padEnd(18)} ${event.id}`;
  try {
    const response = await fetch(options.forwardTo, { method: 'POST', headers, body, signal: AbortSignal.any([options.signal, AbortSignal.timeout(10_000)]) });
    await response.body?.cancel();
    return `${describe}  --> [${response.status}] POST ${options.forwardTo} (${Date.now() - started} ms)`;
  } catch (error) {
    return `${describe}  --> [failed] POST ${options.forwardTo}: ${(error as Error).cause ? String((error as Error).cause) : (error as Error).message}`;
  }
}
