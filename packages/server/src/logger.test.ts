import { describe, expect, it } from 'vitest';
import { redactSensitive } from './logger';

describe('redactSensitive', () => {
  it('censors sensitive keys at any depth, in arrays too, without touching the logged object', () => {
    const logged = {
      token: 'eyJ…',
      job: { payload: { card: { number: '4111111111111111', cvv: '123', holder_name: 'MARIA' } } },
      items: [{ tax_id: '52998224725', amount: 10 }],
      headers: { 'x-auth-token': 't', authorization: 'Bearer a', accept: 'application/json' },
      body: { anything: 'at all' },
    };
    const before = JSON.stringify(logged);
    expect(redactSensitive(logged)).toEqual({
      token: '[redacted]',
      job: { payload: { card: { number: '[redacted]', cvv: '[redacted]', holder_name: 'MARIA' } } },
      items: [{ tax_id: '[redacted]', amount: 10 }],
      headers: { 'x-auth-token': '[redacted]', authorization: '[redacted]', accept: 'application/json' },
      body: '[redacted]',
    });
    expect(JSON.stringify(logged)).toBe(before);
  });

  it('passes errors through for the error serializer and cuts cycles', () => {
    const err = new Error('boom');
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const out = redactSensitive({ err, cyclic });
    expect(out.err).toBe(err);
    expect(out.cyclic).toEqual({ name: 'loop', self: '[cut]' });
  });

  it('keeps a nested body (only a top-level body is dropped whole)', () => {
    expect(redactSensitive({ response: { body: 'ok' } })).toEqual({ response: { body: 'ok' } });
  });
});
