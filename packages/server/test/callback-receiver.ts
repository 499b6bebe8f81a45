import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * A merchant's callback endpoint for tests: a real HTTP server on 127.0.0.1 that records every
 * request and answers as each test tells it to. It also watches for overlap: a callback whose
 * `webhook-id` arrives while another request with that id is still being answered.
 */
export interface ReceivedCallback {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly id: string;
  readonly at: number;
  status: number;
}

/** How to answer one request: a status, optional headers, optionally after a delay. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
  /** Sends a body that never ends: 8 KiB at once, then 8 KiB every 100 ms until the client hangs up. */
  endlessBody?: boolean;
}

export type Responder = (request: ReceivedCallback, seenBefore: number) => Answer;

export interface CallbackReceiver {
  readonly url: string;
  readonly received: ReceivedCallback[];
  /** Requests under a path prefix that arrived while another with the same path and webhook-id was being answered. */
  overlapsAt(pathPrefix: string): number;
  /** Sets how requests under a path prefix are answered (longest prefix wins; default 204). */
  on(pathPrefix: string, responder: Responder): void;
  /** Requests whose path starts with the prefix. */
  at(pathPrefix: string): ReceivedCallback[];
  waitFor(predicate: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = [];
  const responders = new Map<string, Responder>();
  const inFlight = new Map<string, number>();
  const seen = new Map<string, number>();
  const overlapping: string[] = [];

  const server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const id = String(req.headers['webhook-id'] ?? '');
      const callback: ReceivedCallback = { path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), id, at: Date.now(), status: 0 };
      received.push(callback);
      // Overlap is counted per path and id, for requests that carry an id (a test's plain POSTs do not).
      const key = `${path}\n${id}`;
      if (id !== '' && (inFlight.get(key) ?? 0) > 0) overlapping.push(path);
      inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      const before = seen.get(key) ?? 0;
      seen.set(key, before + 1);
      const prefix = [...responders.keys()].filter((p) => path.startsWith(p)).sort((a, b) => b.length - a.length)[0];
      const answer = prefix === undefined ? { status: 204 } : (responders.get(prefix) as Responder)(callback, before);
      const send = () => {
        inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
        callback.status = answer.status;
        res.writeHead(answer.status, answer.headers);
        if (answer.endlessBody) {
          const chunk = Buffer.alloc(8192, 'x');
          res.write(chunk);
          const timer = setInterval(() => res.write(chunk), 100);
          res.on('close', () => clearInterval(timer));
          return;
        }
        res.end(answer.status === 204 ? undefined : 'ok');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    received,
    overlapsAt: (pathPrefix) => overlapping.filter((p) => p.startsWith(pathPrefix)).length,
    on: (pathPrefix, responder) => void responders.set(pathPrefix, responder),
    at: (pathPrefix) => received.filter((r) => r.path.startsWith(pathPrefix)),
    async waitFor(predicate, timeoutMs = 10_000, what = 'callbacks') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A callback's payload once its Standard Webhooks signature checks out under `secret` (throws otherwise). */
export function verifyCallback(secret: string, callback: ReceivedCallback): any {
  return new Webhook(secret).verify(callback.body, callback.headers as Record<string, string>);
}

/** A fresh receiver path, so a test (or an endpoint) reads only its own callbacks. */
export function callbackPath(name: string): string {
  return `/${name}/${randomBytes(4).toString('hex')}`;
}
