import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUNDLE_FILE_NAME, bundleClient } from './bundle';

// `npm run build -w @colibri/client-3ds`: writes dist/client-v1.0.min.js for hosting the library
// elsewhere or serving it without esbuild installed; the service builds it in memory otherwise.
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
mkdirSync(dist, { recursive: true });
const code = await bundleClient();
writeFileSync(`${dist}${BUNDLE_FILE_NAME}`, code);
console.log(`${BUNDLE_FILE_NAME}: ${Buffer.byteLength(code)} bytes`);
