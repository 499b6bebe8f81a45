import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../server/test/harness';

/**
 * The package as a user gets it: `npm pack` (which builds dist/ through prepack), installed from its
 * tarball into a fresh project outside the repository, type-checked with that project's own settings
 * (NodeNext, strict, the package's declarations checked too, without @types/node), and run against a
 * running Colibri. It catches what the in-repository tests cannot: a file missing from `files`, an
 * export map that does not resolve, declarations that do not compile, a dependency that is only a dev
 * dependency here. About 6 s of CPU (the build, the install from npm's cache, the type check); PGlite
 * only: it tests the package, not the database.
 */

const run = promisify(execFile);
const ROOT = new URL('../../../', import.meta.url).pathname;
const SDK = new URL('../', import.meta.url).pathname;
// npm run from a script passes its settings down as npm_config_*; the fresh project must not inherit them.
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));

const CONSUMER = `import { Colibri, ColibriError, ERROR_CODES, UnprocessableError, ValidationError, verifyCallback, type Schemas } from '@colibri/sdk';

// No @types/node: the package's declarations must stand on the standard library and fetch's types alone.
declare const process: { argv: string[] };

const [baseUrl, apiKey, apiSecret, contractId] = process.argv.slice(2) as [string, string, string, string];
const colibri = new Colibri({ baseUrl, apiKey, apiSecret });

const session: Schemas['CheckoutSession'] = await colibri.checkout.generate({
  amount: '49.90', asset: 'BRL', referenceId: 'packed-1', contractId, method: 'PIX',
});
const status: 'CREATED' | 'PROCESSING' | 'PAID' | 'CANCELED' | 'ERROR' = session.status;

let code: string | undefined;
let family: string | undefined;
try {
  await colibri.checkout.generate({ amount: '0.50', asset: 'BRL', referenceId: 'packed-2', contractId, method: 'PIX' }, { idempotencyKey: 'packed-2-checkout', timeoutMs: 10_000 });
} catch (error) {
  if (!(error instanceof ColibriError)) throw error;
  code = error.codes[0];
  family = error instanceof ValidationError ? 'validation' : error instanceof UnprocessableError ? 'unprocessable' : error.name;
}

// @ts-expect-error: the types are the API's, not any: a session without its required fields is a type error.
void (() => colibri.checkout.generate({ amount: '1.00' }));

console.log(JSON.stringify({ status, pix: session.payment?.pix?.br_code?.slice(0, 6), code, family, below: ERROR_CODES.AMOUNT_BELOW_MINIMUM, verify: typeof verifyCallback }));
`;

const PLAIN_BODY = `const [baseUrl, apiKey, apiSecret] = process.argv.slice(2);
const colibri = new sdk.Colibri({ baseUrl, apiKey, apiSecret });
const me = await colibri.me();
const notFound = await colibri.refunds.get(987654321).catch((e) => e);
const aborted = await colibri.me({ signal: AbortSignal.abort() }).catch((e) => e);
console.log(JSON.stringify({ merchant: me.merchant_id, notFound: [notFound.name, notFound.status, notFound instanceof sdk.ApiError], aborted: [aborted.name, aborted instanceof sdk.ColibriAbortError] }));
`;
const PLAIN_ESM = `import * as sdk from '@colibri/sdk';\n${PLAIN_BODY}`;
const PLAIN_CJS = `const sdk = require('@colibri/sdk');\n(async () => {\n${PLAIN_BODY}})().catch((e) => { console.error(e); process.exit(1); });\n`;

describe('the SDK as npm packs it', () => {
  let service: TestService;
  let dir: string;
  beforeAll(async () => {
    service = await startTestService('pglite');
    dir = mkdtempSync(join(tmpdir(), 'colibri-sdk-pack-'));
  });
  afterAll(async () => {
    await service?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('packs, installs from the tarball into a fresh project, type-checks, and calls a running Colibri', async () => {
    const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: SDK, env, maxBuffer: 16 * 1024 * 1024 });
    const [manifest] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    const files = manifest!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/generated/openapi.d.ts']));
    // What a user installs is the built library and its README: no sources, tests or scripts.
    expect(files.filter((f) => !f.startsWith('dist/') && f !== 'README.md' && f !== 'package.json')).toEqual([]);

    const project = join(dir, 'consumer');
    await run('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'colibri-sdk-consumer', private: true, type: 'module' }));
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022', 'DOM'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          // The package's declarations (and its dependencies') are checked; TypeScript's own are not.
          skipLibCheck: false,
          skipDefaultLibCheck: true,
          outDir: 'out',
          types: [],
        },
        files: ['consumer.ts'],
      }),
    );
    writeFileSync(join(project, 'consumer.ts'), CONSUMER);
    // From npm's cache when it has the dependencies (it does once the repository is installed).
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(dir, manifest!.filename)], { cwd: project, env });

    const tsc = await run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', project], { cwd: project, env }).catch((error: { stdout: string }) => {
      throw new Error(`the consumer does not type-check:\n${error.stdout}`);
    });
    expect(tsc.stdout).toBe('');

    const merchant = await service.merchant('Packed Shop');
    const out = await run('node', [join(project, 'out', 'consumer.js'), service.baseUrl, merchant.api_key, merchant.api_secret, merchant.contract_id], { cwd: project, env });
    expect(JSON.parse(out.stdout)).toMatchObject({ status: 'PROCESSING', pix: '000201', code: '00.04.0002', below: '00.04.0002', verify: 'function' });
    expect(JSON.parse(out.stdout).family).toBe('validation');

    // Plain Node, no TypeScript: an ES module imports it, and (Node 20.19+ loads ES modules from require) CommonJS requires it.
    writeFileSync(join(project, 'plain.mjs'), PLAIN_ESM);
    writeFileSync(join(project, 'plain.cjs'), PLAIN_CJS);
    for (const file of ['plain.mjs', 'plain.cjs']) {
      const plain = await run('node', [join(project, file), service.baseUrl, merchant.api_key, merchant.api_secret], { cwd: project, env });
      expect(JSON.parse(plain.stdout), file).toEqual({ merchant: merchant.merchant_id, notFound: ['NotFoundError', 404, true], aborted: ['AbortError', true] });
    }
  }, 120_000);
});
