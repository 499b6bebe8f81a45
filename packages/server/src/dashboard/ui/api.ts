/**
 * Calls to /dashboard/api/*. The session cookie goes by itself (same origin); changes also carry the
 * session's CSRF token, which the page holds in memory only.
 */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(describe(status, body));
  }
}

function describe(status: number, body: unknown): string {
  const messages = (body as { errors?: { code: string; description: string }[] } | null)?.errors;
  if (Array.isArray(messages) && messages.length > 0) return messages.map((m) => `${m.code}: ${m.description}`).join(' ');
  const message = (body as { message?: string } | null)?.message;
  return message ? `${status} ${message}` : `HTTP ${status}`;
}

let csrfToken = '';
let onSignedOut: () => void = () => undefined;

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** What to do when the server says the session is gone (401): show the sign-in form. */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/**
 * The JSON of an answer, as the page reads it: the server's schemas type it, and the views show its
 * fields as they come, so a second set of types here would only repeat them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export async function api<T = Json>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`/dashboard/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const parsed: unknown = text && (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
  if (!response.ok) {
    if (response.status === 401 && path !== '/session') onSignedOut();
    throw new ApiFailure(response.status, parsed);
  }
  return parsed as T;
}

/**
 * Sends a multipart form (a file upload) with the session's CSRF token; the browser writes the body and
 * its boundary, and the parts go in the form's order.
 * @example const dispute = await upload('/disputes/42/evidence', form);
 */
export async function upload<T = Json>(path: string, form: FormData): Promise<T> {
  const response = await fetch(`/dashboard/api${path}`, {
    method: 'POST',
    headers: { accept: 'application/json', 'x-csrf-token': csrfToken },
    credentials: 'same-origin',
    body: form,
  });
  const parsed = parseJson(await response.text());
  if (!response.ok) {
    if (response.status === 401) onSignedOut();
    throw new ApiFailure(response.status, parsed);
  }
  return parsed as T;
}

/** The catalogue codes of a failed call's error body (docs/errors.md), first to last. */
export function errorCodes(failure: unknown): string[] {
  const errors = failure instanceof ApiFailure ? (failure.body as { errors?: { code?: unknown }[] } | null)?.errors : undefined;
  return Array.isArray(errors) ? errors.map((e) => String(e.code ?? '')) : [];
}

/** A query string of the defined, non-empty values. */
export function query(values: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * Streams a download, reporting the bytes received as they arrive, and answers it as a Blob.
 * @example const blob = await download('/reports/3/export?format=csv', (bytes) => show(bytes));
 */
export async function download(path: string, progress: (bytes: number) => void): Promise<Blob> {
  const response = await fetch(`/dashboard/api${path}`, { credentials: 'same-origin' });
  if (!response.ok || !response.body) {
    const text = await response.text();
    throw new ApiFailure(response.status, parseJson(text));
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.byteLength;
    progress(received);
  }
  return new Blob(chunks as BlobPart[], { type: response.headers.get('content-type') ?? 'application/octet-stream' });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
