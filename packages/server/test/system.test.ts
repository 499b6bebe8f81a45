import { Validator } from '@seriousme/openapi-schema-validator';
import { expect, it } from 'vitest';
import { describeEachEngine } from './harness';

describeEachEngine('health, metrics, OpenAPI and docs', (service) => {
  it('answers /healthz and /readyz without a token', async () => {
    expect((await service().get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await service().get('/readyz')).body).toEqual({ status: 'ready' });
  });

  it('answers /metrics only with the admin token', async () => {
    expect((await service().get('/metrics')).status).toBe(401);
    const m = await service().merchant();
    expect((await service().get('/metrics', { token: m.token })).status).toBe(401);
    expect((await service().get('/metrics', { headers: { authorization: 'Bearer not-the-token' } })).status).toBe(401);
    const response = await service().get('/metrics', { headers: { authorization: `Bearer ${service().ctx.adminToken}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
  });

  it('counts requests per route template and status in /metrics', async () => {
    const m = await service().merchant();
    await service().get('/me', { token: m.token });
    await service().get('/me');
    const text = (await service().get('/metrics', { headers: { authorization: `Bearer ${service().ctx.adminToken}` } })).text;
    expect(text).toMatch(/colibri_http_requests_total\{method="GET",route="\/me",status_code="200"\} [1-9]/);
    expect(text).toMatch(/colibri_http_requests_total\{method="GET",route="\/me",status_code="401"\} [1-9]/);
    expect(text).toMatch(/colibri_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/me",status_code="200"\}/);
  });

  it('serves a valid OpenAPI 3.1 document that lists the routes', async () => {
    const response = await service().get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(response.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(response.body.paths)).toEqual(expect.arrayContaining(['/auth', '/me', '/checkout/sendPayment']));
    // The operator's and internal routes have a document of their own (docs/conventions.md, "API reference").
    const operator = await service().get('/openapi/operator.json');
    expect(operator.status).toBe(200);
    const operatorResult = await validator.validate(operator.body);
    expect(operatorResult.errors ?? []).toEqual([]);
    expect(Object.keys(operator.body.paths)).toEqual(expect.arrayContaining(['/admin/merchants', '/healthz']));
    expect(Object.keys(response.body.paths)).not.toContain('/admin/merchants');
  });

  it('serves the API reference at /docs with no third-party resources', async () => {
    for (const path of ['/docs/', '/docs/operator/']) {
      const response = await service().get(path);
      expect(response.status).toBe(200);
      expect(response.text).toContain('swagger-ui');
      expect(response.text).toMatch(/<title>Colibri .*API reference<\/title>/);
      expect(response.text).not.toMatch(/src="https?:\/\//);
      expect(response.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    }
  });

  it('echoes a request id', async () => {
    const response = await service().get('/healthz', { headers: { 'x-request-id': 'trace-123' } });
    expect(response.headers.get('x-request-id')).toBe('trace-123');
  });
});
