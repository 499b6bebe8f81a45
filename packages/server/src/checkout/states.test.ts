import { describe, expect, it } from 'vitest';
import { isHttpUrl, parseMethods } from './generate-checkout';
import { CHECKOUT_STATES, CHECKOUT_STATUSES, MAX_ATTEMPTS, attemptOutcome, nextCheckoutState, redirectUrlOf, type AttemptOutcome } from './states';

describe('checkout session states', () => {
  it('follows the spec table: final states have no way out, CREATED never returns', () => {
    for (const status of ['PAID', 'CANCELED', 'ERROR'] as const) expect(CHECKOUT_STATES.moves[status]).toEqual([]);
    for (const status of CHECKOUT_STATUSES) expect(CHECKOUT_STATES.moves[status]).not.toContain('CREATED');
  });

  it('maps each attempt outcome to a session status, by mode', () => {
    const next = (mode: 'SINGLE' | 'MULTI', outcome: AttemptOutcome | null, extra: { expired?: boolean; attempts?: number } = {}) =>
      nextCheckoutState({ mode, status: 'PROCESSING', attempts: extra.attempts ?? 1, outcome, expired: extra.expired ?? false });
    expect(next('SINGLE', 'PAID')).toEqual({ status: 'PAID', endReason: 'PAID' });
    expect(next('SINGLE', 'DECLINED')).toEqual({ status: 'CANCELED', endReason: 'DECLINED' });
    expect(next('SINGLE', 'ERROR')).toEqual({ status: 'ERROR', endReason: 'ERROR' });
    expect(next('SINGLE', 'EXPIRED')).toEqual({ status: 'CANCELED', endReason: 'EXPIRED' });
    expect(next('MULTI', 'PAID')).toEqual({ status: 'PAID', endReason: 'PAID' });
    expect(next('MULTI', 'DECLINED')).toEqual({ status: 'PROCESSING', endReason: null });
    expect(next('MULTI', 'ERROR')).toEqual({ status: 'PROCESSING', endReason: null });
    expect(next('MULTI', 'CANCELED')).toEqual({ status: 'PROCESSING', endReason: null });
    expect(next('MULTI', 'EXPIRED')).toEqual({ status: 'CANCELED', endReason: 'EXPIRED' });
    expect(next('MULTI', 'DECLINED', { expired: true })).toEqual({ status: 'CANCELED', endReason: 'EXPIRED' });
    expect(next('MULTI', 'ERROR', { expired: true })).toEqual({ status: 'ERROR', endReason: 'EXPIRED' });
    expect(next('MULTI', 'DECLINED', { attempts: MAX_ATTEMPTS })).toEqual({ status: 'CANCELED', endReason: 'ATTEMPTS_EXHAUSTED' });
    // An open attempt waits even past expiry: a card authorisation already sent must settle.
    expect(next('MULTI', 'OPEN', { expired: true })).toEqual({ status: 'PROCESSING', endReason: null });
    expect(nextCheckoutState({ mode: 'SINGLE', status: 'CREATED', attempts: 0, outcome: null, expired: true })).toEqual({ status: 'CANCELED', endReason: 'EXPIRED' });
    expect(nextCheckoutState({ mode: 'SINGLE', status: 'PAID', attempts: 1, outcome: 'ERROR', expired: true }).status).toBe('PAID');
  });

  it('every mapped status is a legal move from PROCESSING', () => {
    for (const mode of ['SINGLE', 'MULTI'] as const) {
      for (const outcome of ['PAID', 'DECLINED', 'ERROR', 'CANCELED', 'EXPIRED'] as const) {
        for (const expired of [false, true]) {
          const { status } = nextCheckoutState({ mode, status: 'PROCESSING', attempts: 1, outcome, expired });
          expect(CHECKOUT_STATES.moves.PROCESSING).toContain(status);
        }
      }
    }
  });

  it('reads payment statuses as attempt outcomes', () => {
    expect(['CREATED', 'PROCESSING', 'PRE_AUTHORIZED'].map(attemptOutcome)).toEqual(['OPEN', 'OPEN', 'OPEN']);
    expect(['PAID', 'REFUNDED', 'DECLINED', 'EXPIRED', 'SOMETHING'].map(attemptOutcome)).toEqual(['PAID', 'PAID', 'DECLINED', 'EXPIRED', 'ERROR']);
  });

  it('redirects final sessions to the merchant URL of their status', () => {
    const urls = { success_url: 's', declined_url: 'd', error_url: 'e' };
    expect(['PAID', 'CANCELED', 'ERROR', 'PROCESSING'].map((status) => redirectUrlOf({ status, ...urls }))).toEqual(['s', 'd', 'e', null]);
  });
});

describe('generate field rules', () => {
  it('reads method as one method, an array or ALL', () => {
    expect(parseMethods('ALL')).toEqual({ ok: true, mode: 'MULTI', methods: ['PIX', 'CREDITCARD', 'BOLETO'] });
    expect(parseMethods(['BOLETO', 'PIX'])).toEqual({ ok: true, mode: 'MULTI', methods: ['PIX', 'BOLETO'] });
    expect(parseMethods(['CREDITCARD', 'CREDITCARD'])).toEqual({ ok: true, mode: 'SINGLE', methods: ['CREDITCARD'] });
    expect(parseMethods('ALL', 'MX')).toEqual({ ok: true, mode: 'MULTI', methods: ['OXXO', 'PAYNET', 'SPEI'] });
    expect(parseMethods(['SPEI', 'OXXO'])).toEqual({ ok: true, mode: 'MULTI', methods: ['OXXO', 'SPEI'] });
    expect(parseMethods(['DEBITCARD', 'PICPAY', 'PIX'])).toEqual({ ok: true, mode: 'MULTI', methods: ['PIX', 'DEBITCARD', 'PICPAY'] });
    expect(parseMethods('CASH').ok).toBe(false);
    expect(parseMethods('oxxo').ok).toBe(false);
    expect(parseMethods(['PIX', 'ALL']).ok).toBe(false);
  });

  it('accepts only absolute http(s) URLs', () => {
    expect(['https://a.example/x?y=1', 'http://127.0.0.1:8080/ok'].map(isHttpUrl)).toEqual([true, true]);
    expect(['/ok', 'ftp://a.example', 'javascript:alert(1)', 'mailto:a@b.c', 'https://', ''].map(isHttpUrl)).toEqual([false, false, false, false, false, false]);
  });
});
