import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';

/** The `colibri` command, as `npm start` runs it. */
export const CLI = new URL('../bin/colibri.js', import.meta.url).pathname;

/** A `colibri` child process with everything it printed. */
export interface Child {
  readonly process: ChildProcess;
  readonly output: string[];
  /** What it printed on stdout alone (JSON log lines). */
  readonly stdout: string[];
  readonly exited: Promise<number | null>;
}

/** Starts `colibri serve` or `colibri worker` as its own OS process. @example spawnColibri('worker', { DATABASE_URL }) */
export function spawnColibri(command: 'serve' | 'worker' | string[], env: Record<string, string>): Child {
  const args = typeof command === 'string' ? [command] : command;
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const stdout: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    output.push(chunk.toString());
    stdout.push(chunk.toString());
  });
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, output, stdout, exited };
}

/** Waits until a child has printed `text`; fails with its output if it exits or takes too long. */
export async function waitForOutput(child: Child, text: string, timeoutMs = 40_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!child.output.join('').includes(text)) {
    if (child.process.exitCode !== null) throw new Error(`process exited with ${child.process.exitCode}: ${child.output.join('')}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for "${text}": ${child.output.join('')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Stops children: SIGTERM, then SIGKILL for any still running after `graceMs`. */
export async function stopChildren(children: readonly Child[], graceMs = 10_000): Promise<(number | null)[]> {
  for (const c of children) if (c.process.exitCode === null) c.process.kill('SIGTERM');
  const timer = setTimeout(() => {
    for (const c of children) if (c.process.exitCode === null) c.process.kill('SIGKILL');
  }, graceMs);
  try {
    return await Promise.all(children.map((c) => c.exited));
  } finally {
    clearTimeout(timer);
  }
}

/** A TCP port free on 127.0.0.1 now, for a child service to listen on. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One JSON call to a child service. @example const created = await api(base, 'POST', '/admin/merchants', { name }, { authorization }) */
export async function api(base: string, method: string, route: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any, text, headers: response.headers };
}

/**
 * A JSON POST sent from a given loopback address (127.0.0.0/8 all reach a service on this machine), so
 * per-address limits see distinct clients over real sockets, without any proxy header.
 * @example const answer = await postFrom(base, '/auth', { apiKey, apiSecret }, '127.0.80.1');
 */
export function postFrom(baseUrl: string, path: string, body: unknown, localAddress: string): Promise<{ status: number; body: any; headers: Record<string, string | string[] | undefined> }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, baseUrl), { method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text.startsWith('{') ? JSON.parse(text) : text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}
