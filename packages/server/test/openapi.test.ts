import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../src/http/openapi';
import { EVENT_TYPES } from '../src/webhooks/schemas';
import { startTestService, type TestService } from './harness';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const ROOT = join(dirname(new URL(import.meta.url).pathname), '..', '..', '..');
/** The linters' own entry points, run with this Node: no npx, no network. */
const REDOCLY = require.resolve('@redocly/cli/bin/cli.js');
const SPECTRAL = require.resolve('@stoplight/spectral-cli/dist/index.js');
const QUIET = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

type Json = Record<string, any>;

/** The document does not depend on the database engine, so one PGlite service serves every check. */
describe('OpenAPI document for code generators', () => {
  let service: TestService;
  let doc: Json;
  let dir: string;
  let file: string;
  const operations: [string, Json][] = [];

  beforeAll(async () => {
    service = await startTestService('pglite');
    doc = (await service.get('/openapi.json')).body;
    for (const [path, item] of Object.entries<Json>(doc.paths)) for (const [method, op] of Object.entries<Json>(item)) operations.push([`${method.toUpperCase()} ${path}`, op]);
    dir = mkdtempSync(join(tmpdir(), 'colibri-openapi-'));
    file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
  });
  afterAll(async () => {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names every operation with the id fixed in OPERATIONS, once', () => {
    expect(operations.length).toBeGreaterThan(40);
    const ids = operations.map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [key, op] of operations) expect({ key, id: op.operationId }).toEqual({ key, id: OPERATIONS[key]?.id });
  });

  it('gives every answer a schema: named components for the resources, the standard body for errors', () => {
    for (const name of ['Payment', 'Totals', 'TransactionDetails', 'Refund', 'Payout', 'Report', 'Checkout', 'Subscription', 'Event', 'ErrorBody']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    for (const [key, op] of operations) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        if (status === '204') continue;
        const media = Object.values<Json>(response.content ?? {});
        expect(media.length, `${key} ${status}`).toBeGreaterThan(0);
        for (const { schema } of media) expect(Object.keys(schema ?? {}).length, `${key} ${status}`).toBeGreaterThan(0);
        if (/^[45]/.test(status) && status !== '503') {
          expect(media[0]!.schema.$ref, `${key} ${status}`).toMatch(/#\/components\/schemas\/(ErrorBody|ReportsAuthError)$/);
        }
      }
    }
    expect(doc.paths['/transactionDetails/{payment_token}'].get.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/TransactionDetails' });
    expect(Object.keys(doc.paths['/reports/myreports/report/{reportId}/export'].get.responses['200'].content)).toEqual(['text/csv', 'application/json']);
  });

  it('lists status values and declares Idempotency-Key on every POST', () => {
    expect(doc.components.schemas.Payment.properties.transaction_status.enum).toContain('PAID');
    expect(doc.components.schemas.Refund.properties.refund_status.enum).toContain('COMPLETED');
    expect(doc.components.schemas.Payout.properties.status.enum).toContain('REJECTED');
    for (const [key, op] of operations) {
      if (!key.startsWith('POST ')) continue;
      expect(op.parameters, key).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    }
    expect(doc.components.parameters.IdempotencyKey.name).toBe('Idempotency-Key');
  });

  it('declares each callback in the webhooks section (OpenAPI 3.1), with its payload schema per event type', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    const ids = new Set<string>();
    for (const [type, item] of Object.entries<Json>(doc.webhooks)) {
      const op = item.post;
      expect(op.operationId, type).toMatch(/^[a-z][A-Za-z]+$/);
      ids.add(op.operationId);
      expect(operations.some(([, path]) => path.operationId === op.operationId), `${op.operationId} is also a path operation`).toBe(false);
      expect(op.parameters.map((p: Json) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
      const ref: string = op.requestBody.content['application/json'].schema.$ref;
      const body = doc.components.schemas[ref.replace('#/components/schemas/', '')];
      expect(body.required).toEqual(['id', 'type', 'created_at', 'data']);
      expect(body.properties.type.const).toBe(type);
      const data = doc.components.schemas[body.properties.data.$ref.replace('#/components/schemas/', '')];
      expect(data.properties.sequence.type, type).toBe('integer');
      expect(data.required, type).toContain('reference_id');
    }
    expect(ids.size).toBe(EVENT_TYPES.length);
    expect(doc.paths['/webhooks/endpoints'].post.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WebhookEndpointCreated' });
  });

  it("passes Redocly's recommended rules with no warning", async () => {
    const { stdout } = await run(process.execPath, [REDOCLY, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'], { env: QUIET });
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { totals: Json; problems: Json[] };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it("passes Spectral's recommended OpenAPI rules with no warning", async () => {
    const result = await run(process.execPath, [SPECTRAL, 'lint', file, '--ruleset', join(ROOT, '.spectral.yaml'), '--fail-severity', 'hint', '--format', 'text'], { env: QUIET }).catch(
      (error: { stdout: string; stderr: string; code: number }) => error,
    );
    expect('code' in result ? `${result.stdout}${result.stderr}` : '').toBe('');
  }, 60_000);
});
