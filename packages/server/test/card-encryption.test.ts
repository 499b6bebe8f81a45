import { CompactEncrypt, importJWK } from 'jose';
import { expect, it } from 'vitest';
import { VALID_CPF } from './fixtures';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';

/**
 * Browser-side card encryption, server side: the published key, and `POST /checkout/card` with an
 * encrypted card. The same flow runs in Chromium with the library in three-ds.browser.test.ts.
 */

async function encryptFor(service: TestService, merchant: TestMerchant, card: Record<string, unknown>, header: Record<string, string> = {}): Promise<string> {
  const key = await service.get(`/checkout/card-encryption-key/${merchant.contract_id}`);
  const publicKey = await importJWK(key.body.jwk, 'RSA-OAEP-256');
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(card)))
    .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: key.body.kid, ...header })
    .encrypt(publicKey);
}

async function newPerson(service: TestService, merchant: TestMerchant): Promise<string> {
  const person = await service.post('/checkout/person', { name: 'Ana Lima', email: 'ana@example.com', tax_id: VALID_CPF, tax_id_type: 'CPF' }, { token: merchant.token });
  return person.body.public_person_id as string;
}

describeEachEngine('browser-side card encryption (server)', (service) => {
  it("publishes one public RSA key per merchant, readable from any page, and keeps its private half encrypted", async () => {
    const m = await service().merchant();
    const key = await service().get(`/checkout/card-encryption-key/${m.contract_id}`);
    expect(key.status).toBe(200);
    expect(key.headers.get('access-control-allow-origin')).toBe('*');
    expect(key.body).toEqual({
      kid: expect.stringMatching(/^ce_/),
      alg: 'RSA-OAEP-256',
      enc: 'A256GCM',
      jwk: { kty: 'RSA', n: expect.any(String), e: 'AQAB', kid: key.body.kid, alg: 'RSA-OAEP-256', use: 'enc' },
    });
    expect(Buffer.from(key.body.jwk.n, 'base64url').length).toBe(256);
    expect((await service().get(`/checkout/card-encryption-key/${m.contract_id}`)).body).toEqual(key.body);
    const other = await service().merchant();
    expect((await service().get(`/checkout/card-encryption-key/${other.contract_id}`)).body.kid).not.toBe(key.body.kid);
    const row = await service().ctx.db.selectFrom('card_encryption_keys').selectAll().where('merchant_id', '=', m.merchant_id).executeTakeFirstOrThrow();
    expect(row.private_key_ciphertext).not.toMatch(/"d"/);
    const opened = JSON.parse(service().ctx.secretBox.decrypt(row.master_key_id, row.private_key_ciphertext)) as Record<string, string>;
    expect(opened.n).toBe(key.body.jwk.n);
    expect(typeof opened.d).toBe('string');
    const unknown = await service().get('/checkout/card-encryption-key/CT-NOPE');
    expect([unknown.status, unknown.body.errors[0].code]).toEqual([404, '00.05.0001']);
  });

  it('stores a card sent encrypted, with the expiry and holder inside or in the clear', async () => {
    const m = await service().merchant();
    const personId = await newPerson(service(), m);
    const inside = await encryptFor(service(), m, { number: '4111111111111111', cvv: '123', exp_month: '12', exp_year: '2035', holder_name: 'ANA LIMA' });
    expect(inside).not.toContain('4111111111111111');
    const stored = await service().post('/checkout/card', { public_person_id: personId, encrypted_card: inside }, { token: m.token });
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    expect(stored.body).toMatchObject({ public_card_status: 'ACTIVE', card_scheme: 'VISA', masked_number: '411111******1111' });

    const numberOnly = await encryptFor(service(), m, { number: '5555555555554444', cvv: '321' });
    const mixed = await service().post('/checkout/card', { public_person_id: personId, encrypted_card: numberOnly, exp_month: 7, exp_year: 2031, holder_name: 'ANA LIMA' }, { token: m.token });
    expect(mixed.status, JSON.stringify(mixed.body)).toBe(200);
    expect(mixed.body.masked_number).toBe('555555******4444');

    // The rules of a card in the clear apply to the opened card: a wrong CVV still fails verification.
    const declined = await encryptFor(service(), m, { number: '4000000000000127', cvv: '123', exp_month: '12', exp_year: '2035', holder_name: 'ANA LIMA' });
    const refused = await service().post('/checkout/card', { public_person_id: personId, encrypted_card: declined }, { token: m.token });
    expect([refused.status, refused.body.errors[0].code]).toEqual([400, '00.07.0007']);
  });

  it("refuses another merchant's, a tampered, a foreign-key or a half-sent encrypted card with one code", async () => {
    const m = await service().merchant();
    const other = await service().merchant();
    const personId = await newPerson(service(), m);
    const card = { number: '4111111111111111', cvv: '123', exp_month: '12', exp_year: '2035', holder_name: 'ANA LIMA' };
    const post = (body: Record<string, unknown>) => service().post('/checkout/card', { public_person_id: personId, ...body }, { token: m.token });
    const expectInvalid = async (body: Record<string, unknown>) => {
      const response = await post(body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.body.errors).toEqual([{ code: '00.07.0020', description: expect.stringMatching(/^encrypted_card: /) }]);
    };
    await expectInvalid({ encrypted_card: await encryptFor(service(), other, card) });
    const good = await encryptFor(service(), m, card);
    const parts = good.split('.');
    const flipped = Buffer.from(parts[3] ?? '', 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    await expectInvalid({ encrypted_card: [parts[0], parts[1], parts[2], flipped.toString('base64url'), parts[4]].join('.') });
    await expectInvalid({ encrypted_card: 'not-a-jwe' });
    await expectInvalid({ encrypted_card: await encryptFor(service(), m, { number: '4111111111111111' }) });
    await expectInvalid({ encrypted_card: await encryptFor(service(), m, card, { kid: 'ce_other' }) });

    const both = await post({ encrypted_card: good, number: '4111111111111111', cvv: '123' });
    expect(both.body.errors).toEqual([{ code: '00.07.0021', description: expect.stringMatching(/^encrypted_card: /) }]);
    const withoutExpiry = await post({ encrypted_card: await encryptFor(service(), m, { number: '4111111111111111', cvv: '123' }) });
    expect(withoutExpiry.body.errors).toEqual(['exp_month', 'exp_year', 'holder_name'].map((field) => ({ code: '00.01.0001', description: `${field}: is required.` })));
    // The untouched card still works, so each refusal above is about its own defect.
    expect((await post({ encrypted_card: good })).status).toBe(200);
  });
});
