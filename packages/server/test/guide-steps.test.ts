import { describe, expect, it } from 'vitest';
import { compareShown, parseGuide } from './guide-steps';

/** How the guide test reads a guide (docs/conventions.md, "Examples in these guides"): pure, no service. */

const block = (body: string, before = '') => `# Guide\n\n${before}\`\`\`sh\n${body}\n\`\`\`\n`;

describe('cutting a guide into steps', () => {
  it('ends a step where output is shown, and keeps prose after a blank line as prose', () => {
    const [parsed] = parseGuide(
      block(`ID=$(curl -s $BASE/a | json id)
# {"id":"…"}

# Now the second call:
curl -s $BASE/b
# PAID
curl -s $BASE/c`),
    );
    expect(parsed!.steps.map((s) => [s.line, s.shown])).toEqual([
      [4, '{"id":"…"}'],
      [6, 'PAID'],
      [10, ''],
    ]);
    expect(parsed!.steps[1]!.script).toContain('# Now the second call:');
  });

  it('reads expected errors, with or without a code, and does not show them as output', () => {
    const [parsed] = parseGuide(block(`curl -s $BASE/card -d '{}'\n# expected error: 400 00.07.0007\n# {"status":400}\ncurl -s $BASE/x\n# expected error: 502`));
    expect(parsed!.steps.map((s) => [s.expectedErrors, s.shown])).toEqual([
      [[{ status: 400, code: '00.07.0007' }], '{"status":400}'],
      [[{ status: 502 }], ''],
    ]);
  });

  it('does not cut inside a loop or a here-document', () => {
    const [parsed] = parseGuide(block(`for i in 1 2; do\n  curl -s $BASE/a\n  # inside the loop\ndone\n# {"ok":true}`));
    expect(parsed!.steps).toHaveLength(1);
    expect(parsed!.steps[0]!.shown).toBe('{"ok":true}');
  });

  it('skips a block with its reason, and refuses a skip without one', () => {
    expect(parseGuide(block('npm start', '<!-- guide-test: skip (starts the service) -->\n'))[0]!.skip).toBe('starts the service');
    expect(() => parseGuide(block('npm start', '<!-- guide-test: skip -->\n'))).toThrow(/must say why/);
  });

  it('marks a block that runs on one engine with its reason, and refuses the marker without one', () => {
    const [marked] = parseGuide(block('npm run simulate -- --seed 1', '<!-- guide-test: one engine (its own database) -->\n'));
    expect(marked).toMatchObject({ oneEngine: 'its own database' });
    expect(marked!.skip).toBeUndefined();
    expect(parseGuide(block('npm run simulate -- --seed 1'))[0]!.oneEngine).toBeUndefined();
    expect(() => parseGuide(block('npm run simulate -- --seed 1', '<!-- guide-test: one engine -->\n'))).toThrow(/must say why/);
  });
});

describe('comparing the output a guide shows', () => {
  const answer = JSON.stringify({ id: 'a1b2', status: 'PAID', amount: 25.5, created_at: '2027-03-04 05:06:07', items: [1, 2, 3], nested: { kind: 'PIX_KEY', masked: 'f***@x.com' } });

  it('matches the fields shown and ignores the others', () => {
    expect(compareShown('{"status":"PAID","amount":25.5}', answer, undefined)).toBeUndefined();
    expect(compareShown('{"status":"PAID","amount":25.50}', answer, undefined)).toBeUndefined();
  });

  it('finds a value, a field or a type that differs', () => {
    expect(compareShown('{"status":"DECLINED"}', answer, undefined)).toMatch(/\$\.status: the guide shows "DECLINED"/);
    expect(compareShown('{"refund_id":"…"}', answer, undefined)).toMatch(/\$\.refund_id: shown in the guide, absent/);
    expect(compareShown('{"amount":"25.50"}', answer, undefined)).toMatch(/\$\.amount/);
    expect(compareShown('{"id":17}', answer, undefined)).toMatch(/\$\.id/);
  });

  it('reads … as anything, <names> as a value got earlier, and dates by their form', () => {
    expect(compareShown('{"id":"…","nested":{…},"created_at":"2026-11-22 10:15:30"}', answer, undefined)).toBeUndefined();
    expect(compareShown('{"id":"<payment_token>","nested":{"masked":"f…@x.com"}}', answer, undefined)).toBeUndefined();
    expect(compareShown('{"id":"a9…"}', answer, undefined)).toMatch(/\$\.id/);
    expect(compareShown('{"created_at":"2026-11-22"}', answer, undefined)).toMatch(/created_at/);
  });

  it('compares a list whole, or in order around …', () => {
    expect(compareShown('{"items":[1,2,3]}', answer, undefined)).toBeUndefined();
    expect(compareShown('{"items":[1,2]}', answer, undefined)).toMatch(/2 items, the answer has 3/);
    expect(compareShown('{"items":[1,…,3]}', answer, undefined)).toBeUndefined();
    expect(compareShown('{"items":[3,…,1]}', answer, undefined)).toMatch(/in order/);
  });

  it("reads Node's inspect form, a bare member list, a wrapped string and a remark in parentheses", () => {
    const inspected = "{\n  id: 'a1b2',\n  status: 'PAID',\n  detail: \"Colibri's payment 250.00 BRL\"\n}";
    expect(compareShown("{ id: '…', status: 'PAID', detail: \"Colibri's payment …\" }", inspected, undefined)).toBeUndefined();
    expect(compareShown('…"nested":{"kind":"PIX_KEY",…}', answer, undefined)).toBeUndefined();
    expect(compareShown('{"nested":{"masked":"f***@x.com"}}   (twice; one capture)', answer, undefined)).toBeUndefined();
    expect(compareShown('{"d":"a loopback\n  address."}', '{"d":"a loopback address."}', undefined)).toBeUndefined();
  });

  it('takes the last value printed, or the last answer when the step printed none', () => {
    expect(compareShown('{"status":"PAID"}', `{"status":"CREATED"}\n${answer}\n`, undefined)).toBeUndefined();
    expect(compareShown('{"status":"PAID"}', '', answer)).toBeUndefined();
    expect(compareShown('{"status":"PAID"}', '', undefined)).toMatch(/printed none/);
  });

  it('matches text line by line, in order', () => {
    const printed = 'verified payment.status_changed order-1 PROCESSING\nverified payment.status_changed order-1 PAID\n';
    expect(compareShown('verified payment.status_changed order-1 PROCESSING\nverified payment.status_changed order-1 PAID', printed, undefined)).toBeUndefined();
    expect(compareShown('verified payment.status_changed order-1 PAID\nverified payment.status_changed order-1 PROCESSING', printed, undefined)).toMatch(/no printed line like/);
    expect(compareShown('id: 2026-11-22T10:15:30.123Z', 'id: 2027-01-02T03:04:05.678Z', undefined)).toBeUndefined();
    expect(compareShown('PAID', 'DECLINED', undefined)).toMatch(/no printed line like "PAID"/);
  });
});
