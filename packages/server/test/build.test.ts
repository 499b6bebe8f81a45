import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { freePort, spawnColibri, stopChildren, waitForOutput, type Child } from './processes';

/**
 * The built service, as an image runs it: `npm run build` writes dist/ (and the 3DS library's), and
 * `colibri serve` runs it in a process where esbuild cannot be imported (test/fakes/without-packages.mjs
 * stands for `npm ci --omit=dev`). The dashboard and the 3DS library must be the files the build
 * wrote, not a bundler's output at run time.
 */

const run = promisify(execFile);
const SERVER = new URL('..', import.meta.url).pathname;
const WITHOUT_ESBUILD = { NODE_OPTIONS: `--import=${new URL('./fakes/without-packages.mjs', import.meta.url).href}`, COLIBRI_TEST_HIDDEN_PACKAGES: 'esbuild' };
const children: Child[] = [];
afterAll(() => stopChildren(children, 2_000));

it('serves /dashboard from the bundle in dist/ with no esbuild installed', async () => {
  // The stand-in for a production install does hide esbuild.
  await expect(run(process.execPath, ['--input-type=module', '-e', "await import('esbuild')"], { env: { ...process.env, ...WITHOUT_ESBUILD } })).rejects.toThrow(/Cannot find package 'esbuild'/);

  // `npm run build`: the service and its dashboard, and the 3DS library.
  await run('npm', ['run', 'build'], { cwd: join(SERVER, '../..') });
  const built = {
    script: readFileSync(join(SERVER, 'dist/dashboard/built/dashboard.js'), 'utf8'),
    style: readFileSync(join(SERVER, 'dist/dashboard/built/dashboard.css'), 'utf8'),
  };
  expect(built.script.length).toBeGreaterThan(50_000);

  const port = await freePort();
  const child = spawnColibri('serve', { ...WITHOUT_ESBUILD, PORT: String(port), COLIBRI_DATA_DIR: mkdtempSync(join(tmpdir(), 'colibri-built-'))});
  children.push(child);
  await waitForOutput(child, 'is running at', 60_000);
  const base = `http://127.0.0.1:${port}`;

  const page = await fetch(`${base}/dashboard`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  const html = await page.text();
  const script = /<script defer src="([^"]+)" integrity="([^"]+)">/.exec(html);
  const style = /<link rel="stylesheet" href="([^"]+)" integrity="([^"]+)">/.exec(html);
  expect(script, html).not.toBeNull();
  expect(style, html).not.toBeNull();

  for (const [match, body] of [
    [script!, built.script],
    [style!, built.style],
  ] as const) {
    const response = await fetch(`${base}${match[1]}`);
    expect(response.status, match[1]).toBe(200);
    const text = await response.text();
    // Byte for byte the file the build wrote, and the integrity hash the page pins is its hash.
    expect(text).toBe(body);
    expect(match[2]).toBe(`sha384-${createHash('sha384').update(text).digest('base64')}`);
  }
  // The 3DS library too is the built file.
  const library = await fetch(`${base}/scripts/client-v1.0.min.js`);
  expect(library.status).toBe(200);
  expect(await library.text()).toBe(readFileSync(join(SERVER, '../client-3ds/dist/client-v1.0.min.js'), 'utf8'));
  expect(child.output.join('')).not.toMatch(/could not be built|esbuild/i);
}, 60_000);
