import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { ADYEN_EVENT_CODES, ADYEN_NOTIFICATION_REASONS, ADYEN_REFUSAL_REASONS, ADYEN_RESULT_CODES, translateNotification, translatePayment } from '../src/connectors/adyen/adyen-codes';
import { runDoctor } from '../src/connectors/doctor';
import { assertSandboxOnly } from '../src/processor/live-mode';
import { planConnectors } from '../src/connectors/plan';
import { OUTCOME_CODES } from '../src/processor/outcome-codes';
import { SandboxSimulator } from '../src/processor/sandbox-simulator';
import { buildContext } from '../src/runtime';
import { ADYEN_REFUSALS, AdyenFake } from './fakes/adyen-fake';

const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');
const ADYEN = { COLIBRI_ADYEN_API_KEY: 'k', COLIBRI_ADYEN_MERCHANT_ACCOUNT: 'Shop', COLIBRI_ADYEN_HMAC_KEY: 'AB12' };
const live = (env: Record<string, string> = {}) => loadConfig({ COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_DATA_DIR: '/tmp/colibri-plan-test', ...env });

describe('connector plan', () => {
  it('routes every method to the simulator in sandbox mode', () => {
    const plan = planConnectors(loadConfig({ COLIBRI_DATA_DIR: '/tmp/colibri-plan-test' }));
    expect([...plan.routes.values()].every((r) => r.definition.id === 'sandbox')).toBe(true);
    expect(plan.routes.size).toBe(9);
  });

  it('refuses to start in live mode without card settings, naming each missing setting', () => {
    expect(() => planConnectors(live())).toThrowError(
      /live mode needs a configured connector[\s\S]*CREDITCARD: set COLIBRI_ADYEN_API_KEY, COLIBRI_ADYEN_MERCHANT_ACCOUNT, COLIBRI_ADYEN_HMAC_KEY \(connector adyen\)[\s\S]*DEBITCARD: set/,
    );
    expect(() => planConnectors(live({ COLIBRI_ADYEN_API_KEY: 'k', COLIBRI_ADYEN_MERCHANT_ACCOUNT: 'Shop' }))).toThrowError(/CREDITCARD: set COLIBRI_ADYEN_HMAC_KEY \(connector adyen\)/);
  });

  it('routes cards to Adyen in live mode and leaves unserved methods unrouted (refused per request)', () => {
    const plan = planConnectors(live(ADYEN));
    expect(plan.routes.get('CREDITCARD')?.definition.id).toBe('adyen');
    expect(plan.routes.get('DEBITCARD')?.definition.id).toBe('adyen');
    for (const method of ['PIX', 'BOLETO', 'PAYOUT'] as const) expect(plan.routes.has(method)).toBe(false);
  });

  it('stops the service start in live mode before anything is built', async () => {
    await expect(buildContext(live(), undefined as never, 'adm_x')).rejects.toThrowError(/Colibri cannot start: live mode needs a configured connector/);
  });

  it('refuses enabled methods that no connector serves yet, and the simulator, in live mode', () => {
    expect(() => planConnectors(live({ ...ADYEN, COLIBRI_LIVE_METHODS: 'CREDITCARD,BOLETO,PAYOUT' }))).toThrowError(
      /BOLETO: set COLIBRI_BOLETO_OUTBOX, COLIBRI_BOLETO_INBOX, COLIBRI_BOLETO_BANK, [^\n]* \(connector cnab\)[\s\S]*PAYOUT: set COLIBRI_DLOCAL_CLIENT_ID, COLIBRI_DLOCAL_CLIENT_SECRET, COLIBRI_DLOCAL_SECRET_KEY \(connector dlocal\)/,
    );
    expect(() => planConnectors(live({ ...ADYEN, COLIBRI_ROUTING: 'PIX=sandbox' }))).toThrowError(/exists only in sandbox mode; live mode never simulates/);
    expect(() => planConnectors(live({ ...ADYEN, COLIBRI_LIVE_METHODS: 'CARD' }))).toThrowError(/COLIBRI_LIVE_METHODS: "CARD" is not a method/);
  });

  it('asks for the live endpoint prefix only in Adyen LIVE', () => {
    expect(() => planConnectors(live({ ...ADYEN, COLIBRI_ADYEN_ENVIRONMENT: 'LIVE' }))).toThrowError(/CREDITCARD: set COLIBRI_ADYEN_LIVE_PREFIX/);
    expect(planConnectors(live({ ...ADYEN, COLIBRI_ADYEN_ENVIRONMENT: 'LIVE', COLIBRI_ADYEN_LIVE_PREFIX: '1797a841fbb37ca7-AdyenDemo' })).routes.size).toBe(2);
  });

  it('lets sandbox mode send a method to a real connector, which then needs all its settings', () => {
    const config = loadConfig({ COLIBRI_DATA_DIR: '/tmp/colibri-plan-test', COLIBRI_ROUTING: 'CREDITCARD=adyen' });
    expect(() => planConnectors(config)).toThrowError(/CREDITCARD: set COLIBRI_ADYEN_API_KEY.*chosen by COLIBRI_ROUTING/);
    const routed = planConnectors(loadConfig({ COLIBRI_DATA_DIR: '/tmp/colibri-plan-test', COLIBRI_ROUTING: 'CREDITCARD=adyen', ...ADYEN }));
    expect(routed.routes.get('CREDITCARD')?.definition.id).toBe('adyen');
    expect(routed.routes.get('PIX')?.definition.id).toBe('sandbox');
  });

  it('never lets sandbox-only parts load in live mode', () => {
    expect(() => new SandboxSimulator(undefined as never, 0, { mode: 'live' })).toThrowError(/refuses to load in live mode/);
    expect(() => assertSandboxOnly({ mode: 'live' }, 'The sandbox controls')).toThrowError(/The sandbox controls exists only in sandbox mode/);
  });
});

describe('Adyen translation tables', () => {
  it('maps every result code, refusal reason and event to a code of Colibri vocabulary', () => {
    const codes = new Set(Object.keys(OUTCOME_CODES));
    for (const mapped of Object.values(ADYEN_RESULT_CODES)) expect(['APPROVED', 'PENDING', 'REASON'].includes(mapped) || codes.has(mapped)).toBe(true);
    for (const mapped of [...Object.values(ADYEN_REFUSAL_REASONS), ...Object.values(ADYEN_NOTIFICATION_REASONS)]) expect(codes.has(mapped)).toBe(true);
    for (const event of Object.values(ADYEN_EVENT_CODES)) expect(codes.has(event.failure)).toBe(true);
  });

  it('are printed in docs/connectors.md as they are in the code', () => {
    const doc = readFileSync(new URL('../../../docs/connectors.md', import.meta.url), 'utf8');
    for (const [code, description] of Object.entries(OUTCOME_CODES)) expect(doc).toContain(`| \`${code}\` | ${description} |`);
    const names = Object.fromEntries(Object.entries(ADYEN_REFUSALS).map(([name, code]) => [code, name]));
    for (const [reason, code] of Object.entries(ADYEN_REFUSAL_REASONS)) expect(doc).toContain(`| ${reason} | ${names[reason]} | \`${code}\` |`);
    for (const [result, mapped] of Object.entries(ADYEN_RESULT_CODES)) expect(doc, result).toMatch(new RegExp(`\\| \`${result}\` \\| [^\\n]*${mapped === 'REASON' ? 'refusalReasonCode' : mapped}`));
    for (const [event, { failure }] of Object.entries(ADYEN_EVENT_CODES)) expect(doc).toMatch(new RegExp(`\\| \`${event}\` \\| [^\\n]*\`${failure}\` \\|`));
    for (const [reason, code] of Object.entries(ADYEN_NOTIFICATION_REASONS)) expect(doc).toContain(`| ${reason} | \`${code}\` |`);
  });

  it("covers every refusal reason Adyen documents (the fake's list)", () => {
    expect(Object.keys(ADYEN_REFUSAL_REASONS).sort()).toEqual(Object.values(ADYEN_REFUSALS).sort());
  });

  it('translates answers: approvals, pending, refusals by reason, processor errors, shopper actions', () => {
    expect(translatePayment({ resultCode: 'Authorised', pspReference: 'P1' })).toEqual({ status: 'APPROVED', processorId: 'P1' });
    expect(translatePayment({ resultCode: 'Received', pspReference: 'P2' })).toEqual({ status: 'PENDING', processorId: 'P2' });
    expect(translatePayment({ resultCode: 'Refused', refusalReasonCode: '12' })).toEqual({ status: 'DECLINED', code: '51', description: 'Insufficient funds' });
    expect(translatePayment({ resultCode: 'Refused', refusalReasonCode: '999' })).toMatchObject({ status: 'DECLINED', code: '05' });
    expect(translatePayment({ resultCode: 'Error' })).toMatchObject({ status: 'ERROR', code: '96' });
    expect(translatePayment({ resultCode: 'ChallengeShopper' })).toMatchObject({ status: 'DECLINED', code: 'AUTHENTICATION_FAILED' });
    expect(translatePayment({ resultCode: 'SomethingNew' })).toMatchObject({ status: 'ERROR', code: 'UNEXPECTED_RESULT' });
    expect(translateNotification({ eventCode: 'AUTHORISATION', success: 'false', pspReference: 'P', reason: 'CVC Declined: 24' })).toMatchObject({ status: 'DECLINED', code: 'N7' });
    expect(translateNotification({ eventCode: 'REFUND_FAILED', success: 'true', pspReference: 'P' })).toMatchObject({ status: 'DECLINED', code: 'REFUND_REJECTED' });
    expect(translateNotification({ eventCode: 'REPORT_AVAILABLE', success: 'true', pspReference: 'P' })).toBeUndefined();
  });
});

describe('colibri doctor', () => {
  const run = async (env: Record<string, string>) => {
    const lines: string[] = [];
    const ok = await runDoctor(live(env), (line) => lines.push(line));
    return { ok, text: lines.join('\n') };
  };

  it('passes a live configuration whose endpoint answers, and lists unserved methods', async () => {
    const fake = await new AdyenFake().start();
    try {
      const { ok, text } = await run(fake.env());
      expect(text, text).toContain('CREDITCARD → adyen');
      expect(text).toContain('PIX        → (none: refused per request)');
      expect(text).toMatch(/ok {3}adyen: Checkout endpoint reachable: http:\/\/127\.0\.0\.1:\d+ answered HTTP 405/);
      expect(text).not.toContain(fake.apiKey);
      expect(ok).toBe(true);
    } finally {
      await fake.stop();
    }
  });

  it('fails an unreachable endpoint, a bad HMAC key and missing settings', async () => {
    const fake = await new AdyenFake().start();
    const env = fake.env();
    await fake.stop();
    const down = await run({ ...env, COLIBRI_ADYEN_HMAC_KEY: 'not-hex' });
    expect(down.ok).toBe(false);
    expect(down.text).toMatch(/FAIL adyen: Checkout endpoint reachable: http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
    expect(down.text).toContain('FAIL adyen: HMAC key');
    const missing = await run({});
    expect(missing.ok).toBe(false);
    expect(missing.text).toContain('FAIL configuration: Colibri cannot start: live mode needs a configured connector');
  });
});
