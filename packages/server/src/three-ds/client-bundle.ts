import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The library as served: its code and an ETag derived from it. */
export interface ClientBundle {
  readonly code: string;
  readonly etag: string;
  readonly bytes: number;
}

let loading: Promise<ClientBundle> | undefined;

/**
 * The 3DS library, built once per process and kept in memory. It is built from the sources of
 * packages/client-3ds with esbuild (a development dependency, present after `npm install`), so
 * `npm start` and `npm test` on a fresh clone serve the current library with no build step. Where
 * esbuild is not installed (a production install without development dependencies), the file
 * written by `npm run build -w @colibri/client-3ds` is served instead.
 * @example const { code, etag } = await loadClientBundle();
 */
export function loadClientBundle(): Promise<ClientBundle> {
  loading ??= build().catch((error: unknown) => {
    // A failed build is not cached, so the next request tries again.
    loading = undefined;
    throw error;
  });
  return loading;
}

async function build(): Promise<ClientBundle> {
  let code: string;
  try {
    const { bundleClient } = await import('@colibri/client-3ds/bundle');
    code = await bundleClient();
  } catch (error) {
    const prebuilt = fileURLToPath(new URL('../../../client-3ds/dist/client-v1.0.min.js', import.meta.url));
    code = await readFile(prebuilt, 'utf8').catch(() => {
      throw new Error(`The 3DS library could not be built (${String(error)}) and ${prebuilt} does not exist`);
    });
  }
  const etag = `"${createHash('sha256').update(code).digest('base64url').slice(0, 27)}"`;
  return { code, etag, bytes: Buffer.byteLength(code) };
}
