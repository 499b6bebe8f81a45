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
  let operatorDoc: Json;
  let dir: string;
  let file: string;
  let operatorFile: string;
  /** Operations of both documents: the merchant's and the operator's. */
  const operations: [string, Json][] = [];
  const merchantKeys: string[] = [];

  beforeAll(async () => {
    service = await startTestService('pglite');
    doc = (await service.get('/openapi.json')).body;
    operatorDoc = (await service.get('/openapi/operator.json')).body;
    for (const [which, d] of [['merchant', doc], ['operator', operatorDoc]] as const) {
      for (const [path, item] of Object.entries<Json>(d.paths)) {
        for (const [method, op] of Object.entries<Json>(item)) {
          operations.push([`${method.toUpperCase()} ${path}`, op]);
          if (which === 'merchant') merchantKeys.push(`${method.toUpperCase()} ${path}`);
        }
      }
    }
    dir = mkdtempSync(join(tmpdir(), 'colibri-openapi-'));
    file = join(dir, 'openapi.json');
    operatorFile = join(dir, 'operator.json');
    writeFileSync(file, JSON.stringify(doc));
    writeFileSync(operatorFile, JSON.stringify(operatorDoc));
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

  it('keeps the operator and internal routes out of the merchant document, in a document of their own', () => {
    const operatorKeys = operations.map(([key]) => key).filter((key) => !merchantKeys.includes(key));
    // Every operation is in exactly one of the two documents.
    expect(new Set(operations.map(([key]) => key)).size).toBe(operations.length);
    for (const key of merchantKeys) expect(key, key).not.toMatch(/^\w+ \/(admin|connectors|pay|healthz|readyz)\b/);
    expect(operatorKeys).toEqual(expect.arrayContaining(['POST /admin/merchants', 'GET /healthz', 'POST /connectors/adyen/notifications', 'GET /pay/{checkout_id}/status']));
    for (const key of operatorKeys) expect(key, key).toMatch(/^\w+ \/(admin|connectors|pay|healthz|readyz)\b/);
    // Neither carries the other's components: the merchant's has no admin scheme nor admin-only schema.
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['authToken']);
    expect(operatorDoc.components.securitySchemes.adminToken).toBeDefined();
    expect(JSON.stringify(doc)).not.toContain('adminToken');
    expect(doc.info.title).toBe('Colibri payments API');
    expect(operatorDoc.info.title).toBe('Colibri operator and internal API');
  });

  it('orders the merchant tags as an integration meets them', () => {
    const names = doc.tags.map((t: Json) => t.name);
    expect(names).toEqual(['Authentication', 'Checkout', 'Persons and cards', 'Payments', '3DS', 'Refunds', 'Payouts', 'Subscriptions', 'Reports', 'Transaction details', 'Balance', 'Disputes', 'Callbacks', 'Sandbox']);
    expect(operatorDoc.tags.map((t: Json) => t.name)).toEqual(['System', 'Admin', 'Connectors', 'Checkout page']);
    // Every tag an operation names is declared, so no operation falls into an unnamed group.
    for (const [key, op] of operations) for (const tag of op.tags ?? []) expect([...doc.tags, ...operatorDoc.tags].map((t: Json) => t.name), key).toContain(tag);
  });

  it('gives every operation a curl sample, and every merchant operation an SDK sample, made from the operation', () => {
    for (const [key, op] of operations) {
      const [method, path] = key.split(' ') as [string, string];
      const curl = op['x-codeSamples']?.find((s: Json) => s.lang === 'Shell')?.source as string;
      expect(curl, key).toContain(`curl -X ${method} "http://127.0.0.1:8080${path.replace(/\{([^}]+)\}/g, (_, n: string) => `$${n.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`)}`);
      const sdk = op['x-codeSamples'].find((s: Json) => s.lang === 'TypeScript')?.source as string | undefined;
      if (merchantKeys.includes(key)) expect(sdk, key).toContain(`colibri.api.${method}('${path}'`);
      else expect(sdk, key).toBeUndefined();
    }
    const refund = doc.paths['/refund'].post['x-codeSamples'];
    expect(refund[0].source).toContain('-H "X-Auth-Token: $TOKEN"');
    expect(refund[0].source).toContain('"payment_token":"payment_token"');
    expect(refund[1].source).toContain("body: {\n    \"payment_token\": \"payment_token\"");
    const admin = operatorDoc.paths['/admin/merchants'].post['x-codeSamples'][0].source;
    expect(admin).toContain('-H "Authorization: Bearer $ADMIN_TOKEN"');
    expect(operatorDoc.paths['/healthz'].get['x-codeSamples'][0].source).toBe('curl -X GET "http://127.0.0.1:8080/healthz"');
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

  it("passes Redocly's recommended rules with no warning, both documents", async () => {
    for (const path of [file, operatorFile]) {
      const { stdout } = await run(process.execPath, [REDOCLY, 'lint', path, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'], { env: QUIET });
      const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { totals: Json; problems: Json[] };
      expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`), path).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    }
  }, 120_000);

  it("passes Spectral's recommended OpenAPI rules with no warning, both documents", async () => {
    for (const path of [file, operatorFile]) {
      const result = await run(process.execPath, [SPECTRAL, 'lint', path, '--ruleset', join(ROOT, '.spectral.yaml'), '--fail-severity', 'hint', '--format', 'text'], { env: QUIET }).catch(
        (error: { stdout: string; stderr: string; code: number }) => error,
      );
      expect('code' in result ? `${result.stdout}${result.stderr}` : '', path).toBe('');
    }
  }, 120_000);
});
