import { readFileSync } from 'node:fs';
import { Type } from 'typebox';
import { expect, it } from 'vitest';
import { renderErrorCatalogue } from '../src/http/error-docs';
import { ERRORS } from '../src/http/errors';
import { describeEachEngine, ERROR_TIMESTAMP } from './harness';

/** A merchant-authenticated route with a typical schema, to exercise the shared validation and error paths. */
const EchoBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 10 }),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })),
  method: Type.Optional(Type.String({ enum: ['PIX', 'BOLETO'] })),
  nested: Type.Optional(Type.Object({ items: Type.Array(Type.Object({ code: Type.String({ pattern: '^\\d{3}$' }) })) })),
});

describeEachEngine(
  'HTTP errors',
  (service) => {
    it('answers a schema failure with 400 and one code per failing field', async () => {
      const m = await service().merchant();
      const response = await service().post(
        '/test/echo',
        { name: '', count: 13, method: 'CASH', nested: { items: [{ code: '123' }, { code: 'abc' }] } },
        { token: m.token },
      );
      expect(response.status).toBe(400);
      expect(response.body.timestamp).toMatch(ERROR_TIMESTAMP);
      expect(response.body).toMatchObject({ status: 400, error: 'Bad Request', path: '/test/echo' });
      expect(response.body.errors).toEqual([
        { code: '00.01.0007', description: 'name: must not be empty.' },
        { code: '00.01.0006', description: 'count: must be <= 12.' },
        { code: '00.01.0005', description: 'method: must be one of PIX, BOLETO.' },
        { code: '00.01.0003', description: 'nested.items[1].code: has an invalid format.' },
      ]);
      // A valid token was presented, so the error carries a fresh one.
      expect(typeof response.body.refresh_token).toBe('string');
      expect((await service().get('/me', { token: response.body.refresh_token })).status).toBe(200);
    });

    it('reports wrong types without coercing them', async () => {
      const m = await service().merchant();
      const response = await service().post('/test/echo', { name: 5, count: '3' }, { token: m.token });
      expect(response.body.errors).toEqual([
        { code: '00.01.0002', description: 'name: must be a string.' },
        { code: '00.01.0002', description: 'count: must be an integer.' },
      ]);
    });

    it('answers unknown routes with 404 in the standard body, without needing a token', async () => {
      const response = await service().get('/no/such/thing?x=1');
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ status: 404, error: 'Not Found', path: '/no/such/thing' });
      expect(response.body.errors[0].code).toBe(ERRORS.ROUTE_NOT_FOUND.code);
    });

    it('answers an oversized body with 413', async () => {
      const m = await service().merchant();
      const response = await service().post('/test/echo', { name: 'x'.repeat(5000) }, { token: m.token });
      expect(response.status).toBe(413);
      expect(response.body.errors[0].code).toBe(ERRORS.PAYLOAD_TOO_LARGE.code);
    });

    it('answers a wrong content type with 415', async () => {
      const m = await service().merchant();
      const response = await service().post('/test/echo', undefined, { token: m.token, raw: 'name=x', headers: { 'content-type': 'text/plain' } });
      expect(response.status).toBe(415);
      expect(response.body.errors[0].code).toBe(ERRORS.UNSUPPORTED_MEDIA_TYPE.code);
      // Form bodies are for POST /auth only.
      const form = await service().post('/test/echo', undefined, { token: m.token, raw: new URLSearchParams({ name: 'x' }) });
      expect(form.status).toBe(415);
    });

    it('never answers a hostile input with a 5xx', async () => {
      const m = await service().merchant();
      const json = { 'content-type': 'application/json' };
      const cases: { path: string; raw?: string; headers?: Record<string, string>; token?: boolean }[] = [
        { path: '/test/echo', raw: '{', headers: json, token: true },
        { path: '/test/echo', raw: '', headers: json, token: true },
        { path: '/test/echo', raw: 'null', headers: json, token: true },
        { path: '/test/echo', raw: '[]', headers: json, token: true },
        { path: '/test/echo', raw: '"string"', headers: json, token: true },
        { path: '/test/echo', raw: '{"__proto__":{"admin":true},"name":"a"}', headers: json, token: true },
        { path: '/test/echo', raw: '{"constructor":{"prototype":{"x":1}},"name":"a"}', headers: json, token: true },
        { path: '/test/echo', raw: `{"name":"${'\\u0000'.repeat(3)}"}`, headers: json, token: true },
        { path: '/test/echo', raw: '{"name":"a","count":1e400}', headers: json, token: true },
        { path: '/test/echo', raw: '{"name":"a"}', headers: { 'content-type': 'application/json', 'idempotency-key': 'a b' }, token: true },
        { path: '/test/echo', raw: '{"name":"a"}', headers: { 'content-type': 'application/json', 'x-auth-token': 'a'.repeat(8000) } },
        { path: '/auth', raw: '--x\r\ncontent-disposition: form-data; name="apiKey"\r\n\r\nk\r\n--x--', headers: { 'content-type': 'multipart/form-data; boundary=x' } },
        { path: '/auth', raw: 'garbage', headers: { 'content-type': 'multipart/form-data' } },
        { path: '/auth', raw: 'apiKey=%zz&apiSecret=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        { path: '/auth', raw: '{"apiKey":["a"],"apiSecret":{"$ne":null}}', headers: json },
        { path: '/auth', raw: `{"apiKey":"${"'; drop table users; --"}","apiSecret":"x"}`, headers: json },
        { path: '/admin/merchants', raw: '{"name":"x"}', headers: { ...json, authorization: 'Bearer' } },
        { path: '/%', raw: '{}', headers: json },
      ];
      for (const c of cases) {
        const response = await service().post(c.path, undefined, { raw: c.raw ?? '', headers: c.headers ?? {}, ...(c.token ? { token: m.token } : {}) });
        expect(response.status, `${c.path} ${c.raw}`).toBeGreaterThanOrEqual(400);
        expect(response.status, `${c.path} ${c.raw}`).toBeLessThan(500);
        expect(response.body.timestamp ?? response.body.message, `${c.path} ${c.raw}`).toBeDefined();
      }
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
      // Users are intact after the injection attempt.
      expect((await service().post('/auth', { apiKey: m.api_key, apiSecret: m.api_secret })).status).toBe(200);
    });
  },
  {
    env: { COLIBRI_BODY_LIMIT_BYTES: '4096' },
    routes: (app) => {
      app.post('/test/echo', { schema: { body: EchoBody } }, async (request) => request.body);
    },
  },
);

it('docs/errors.md is generated from the catalogue and up to date', () => {
  const onDisk = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
  expect(onDisk).toBe(renderErrorCatalogue());
});

it('every catalogue code is unique and in NN.NN.NNNN form', () => {
  const codes = Object.values(ERRORS).map((e) => e.code);
  expect(new Set(codes).size).toBe(codes.length);
  for (const code of codes) expect(code).toMatch(/^\d{2}\.\d{2}\.\d{4}$/);
});
