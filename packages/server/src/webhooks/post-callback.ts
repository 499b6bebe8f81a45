import { Agent, request } from 'undici';
import { CallbackTargetRefused, type OutboundGuard } from './outbound-guard';

/** The most of a receiver's answer that is read; the rest is dropped with the connection. */
export const MAX_RESPONSE_BYTES = 4096;

/** What one POST to a merchant came to: an HTTP status, or an error that prevented one. */
export interface PostResult {
  readonly status: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  /** A failure that no retry can fix (the URL is not http or https). */
  readonly permanent: boolean;
}

/**
 * The HTTP client of callbacks: one connection pool per receiver origin, sockets that resolve through
 * the outbound guard, and no redirects (undici's `request` follows none unless told to).
 * @example const agent = createCallbackAgent(guard, 15_000);
 */
export function createCallbackAgent(guard: OutboundGuard, timeoutMs: number): Agent {
  return new Agent({
    connect: { lookup: guard.lookup, timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // Enough sockets per receiver for a burst of callbacks; idle ones close after 4 s.
    connections: 32,
    keepAliveTimeout: 4_000,
  });
}

/**
 * POSTs one signed callback and reports what happened. It never throws: every failure (refused
 * address, DNS, connection, timeout, a non-2xx answer) becomes a result that the attempt log
 * records. The whole attempt, from the DNS lookup to the last byte read, is bounded by `timeoutMs`.
 * @example
 * const result = await postCallback({ agent, guard, url, headers, body, timeoutMs: 15_000 });
 * if (result.status !== null && result.status >= 200 && result.status < 300) … // delivered
 */
export async function postCallback(input: {
  agent: Agent;
  guard: OutboundGuard;
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: URL;
  try {
    target = new URL(input.url);
  } catch {
    return { status: null, latencyMs: 0, error: 'invalid notification URL', permanent: true };
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return { status: null, latencyMs: 0, error: `notification URL scheme ${target.protocol} is not http or https`, permanent: true };
  }
  const signal = AbortSignal.timeout(input.timeoutMs);
  try {
    input.guard.checkLiteral(target);
    const response = await request(target, {
      method: 'POST',
      dispatcher: input.agent,
      headers: input.headers,
      body: input.body,
      signal,
    });
    let read = 0;
    for await (const chunk of response.body) {
      read += (chunk as Buffer).length;
      // A receiver that answers with a large body is not waited for: the callback's outcome is
      // in the status line, and the connection is simply dropped.
      if (read >= MAX_RESPONSE_BYTES) {
        response.body.destroy();
        break;
      }
    }
    const status = response.statusCode;
    const error =
      status >= 200 && status < 300
        ? null
        : status >= 300 && status < 400
          ? `HTTP ${status}: redirect${redirectTarget(response.headers.location)} not followed`
          : `HTTP ${status}`;
    return { status, latencyMs: elapsed(), error, permanent: false };
  } catch (error) {
    return { status: null, latencyMs: elapsed(), error: describeFailure(error, signal, input.timeoutMs), permanent: false };
  }
}

function redirectTarget(location: string | string[] | undefined): string {
  const value = Array.isArray(location) ? location[0] : location;
  return value ? ` to ${value.slice(0, 200)}` : '';
}

/** A short, stable description of why no answer came, for the attempt log. */
function describeFailure(error: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `timeout: no complete answer within ${timeoutMs} ms`;
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    if (e instanceof CallbackTargetRefused || (e as { code?: string }).code === 'ECALLBACKREFUSED') return e.message;
  }
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  const message = err.cause?.message ?? err.message ?? String(error);
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    ENOTFOUND: 'dns: host not found',
    EAI_AGAIN: 'dns: temporary failure',
    UND_ERR_CONNECT_TIMEOUT: `timeout: no connection within ${timeoutMs} ms`,
    UND_ERR_HEADERS_TIMEOUT: `timeout: no answer within ${timeoutMs} ms`,
    UND_ERR_BODY_TIMEOUT: `timeout: answer body stalled for ${timeoutMs} ms`,
    UND_ERR_SOCKET: 'connection closed by the receiver',
  };
  const text = (code && known[code]) ?? `${code ? `${code}: ` : ''}${message}`;
  return text.slice(0, 500);
}
