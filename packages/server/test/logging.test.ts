import { Writable } from 'node:stream';
import pino from 'pino';
import { expect, it } from 'vitest';
import { loggerOptions } from '../src/logger';
import { describeEachEngine } from './harness';

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
    done();
  },
});

describeEachEngine(
  'structured logs',
  (service) => {
    it('puts the request id on every line of a request and redacts secrets, tokens and card data', async () => {
      const m = await service().merchant();
      const auth = await service().post('/auth', { apiKey: m.api_key, apiSecret: m.api_secret }, { headers: { 'x-request-id': 'req-auth-1' } });
      const token = auth.body.token as string;
      await service().post('/auth', { apiKey: m.api_key, apiSecret: 'wrong-secret-value' });
      await service().post(
        '/test/log-sensitive',
        { card: { number: '4111111111111111', cvv: '123' } },
        { token, headers: { 'x-request-id': 'req-log-1', authorization: 'Bearer admin-secret-value' } },
      );
      const text = lines.map((l) => JSON.stringify(l)).join('\n');
      for (const secret of [m.api_secret, token, '4111111111111111', 'wrong-secret-value', 'admin-secret-value']) {
        expect(text).not.toContain(secret);
      }
      expect(text).toContain('[redacted]');
      const ofRequest = lines.filter((l) => JSON.stringify(l).includes('/test/log-sensitive') || l.msg === 'sensitive');
      expect(ofRequest.length).toBeGreaterThanOrEqual(2);
      for (const line of lines.filter((l) => l.reqId === 'req-log-1' || l.msg === 'sensitive')) expect(line.reqId).toBe('req-log-1');
      expect(lines.some((l) => l.reqId === 'req-auth-1')).toBe(true);
    });
  },
  {
    logger: pino({ ...loggerOptions('info') }, sink),
    routes: (app) => {
      app.post('/test/log-sensitive', async (request) => {
        const body = request.body as { card: { number: string; cvv: string } };
        // Code that logs carelessly: the redaction must still hold.
        request.log.info({ req: { headers: request.headers }, card: body.card, token: request.headers['x-auth-token'], headers: request.headers }, 'sensitive');
        return { ok: true };
      });
    },
  },
);
