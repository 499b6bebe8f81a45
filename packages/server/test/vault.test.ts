import { expect, it } from 'vitest';
import { ERRORS } from '../src/http/errors';
import { findCard, processorCard } from '../src/vault/lookup';
import { describeEachEngine } from './harness';
import { cardBody, cardsOf, CVV_FAILURE_CARD, expectErrors, newPerson, personBody, personsOf } from './vault-fixtures';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The contract's simulator test cards (CONTRACTS.md, "Simulator test cards"), all but the CVV-failure card. */
const TEST_CARDS: readonly [number: string, scheme: string, masked: string][] = [
  ['4111111111111111', 'VISA', '411111******1111'],
  ['5555555555554444', 'MASTER', '555555******4444'],
  ['6362970000457013', 'ELO', '636297******7013'],
  ['378282246310005', 'AMERICAN_EXPRESS', '378282*****0005'],
  ['36227206271667', 'DINERS_CLUB', '362272****1667'],
  ['6011111111111117', 'DISCOVER', '601111******1117'],
  ['3566002020360505', 'JCB', '356600******0505'],
  ['4000000000000002', 'VISA', '400000******0002'],
  ['4000000000000069', 'VISA', '400000******0069'],
  ['4000000000000119', 'VISA', '400000******0119'],
  ['4000000000002701', 'VISA', '400000******2701'],
  ['4000000000002503', 'VISA', '400000******2503'],
  ['4000000000002420', 'VISA', '400000******2420'],
  ['4000000000002370', 'VISA', '400000******2370'],
  ['4000000000002644', 'VISA', '400000******2644'],
];

describeEachEngine('POST /checkout/person', (service) => {
  it('creates a person and answers its public id with a refresh token', async () => {
    const m = await service().merchant();
    const response = await service().post('/checkout/person', personBody({ name: '  Maria Silva ' }), { token: m.token });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['public_person_id', 'refresh_token']);
    expect(response.body.public_person_id).toMatch(UUID);
    expect((await service().get('/me', { token: response.body.refresh_token })).body.merchant_id).toBe(m.merchant_id);
    const [row] = await personsOf(service(), m.merchant_id);
    expect(row).toMatchObject({
      id: response.body.public_person_id,
      name: 'Maria Silva',
      email: 'maria@example.com',
      tax_id_type: 'CPF',
      tax_id: '52998224725',
      phone: null,
    });
  });

  it.each([
    ['CPF', '529.982.247-25', '52998224725'],
    ['CPF', '52998224725', '52998224725'],
    ['CPF', ' 123 456 789 09 ', '12345678909'],
    ['CNPJ', '11.222.333/0001-81', '11222333000181'],
    ['CNPJ', '11222333000181', '11222333000181'],
    ['CNPJ', '12.ABC.345/01DE-35', '12ABC34501DE35'],
    ['CNPJ', '12.abc.345/01de-35', '12ABC34501DE35'],
  ])('accepts the %s %j and stores it compact', async (type, taxId, stored) => {
    const m = await service().merchant();
    const response = await service().post('/checkout/person', personBody({ tax_id: taxId, tax_id_type: type }), { token: m.token });
    expect(response.status, response.text).toBe(200);
    const [row] = await personsOf(service(), m.merchant_id);
    expect(row?.tax_id).toBe(stored);
    expect(row?.tax_id_type).toBe(type);
  });

  it.each([
    ['CPF', '529.982.247-26', 'tax_id: the check digits do not match; this is not a valid CPF.'],
    ['CPF', '111.111.111-11', 'tax_id: a CPF whose digits are all the same is never issued.'],
    ['CPF', '5299822472', 'tax_id: a CPF has 11 digits.'],
    ['CPF', '11222333000181', 'tax_id: a CPF has 11 digits.'],
    ['CPF', '529.982.247-2A', 'tax_id: a CPF may contain only digits, with ".", "-" or spaces as separators.'],
    ['CPF', '529,982,247-25', 'tax_id: a CPF may contain only digits, with ".", "-" or spaces as separators.'],
    ['CNPJ', '11.222.333/0001-82', 'tax_id: the check digits do not match; this is not a valid CNPJ.'],
    ['CNPJ', '12.ABC.345/01DE-36', 'tax_id: the check digits do not match; this is not a valid CNPJ.'],
    ['CNPJ', '12ABC34501DEA5', 'tax_id: the last two characters of a CNPJ (its check digits) must be digits.'],
    ['CNPJ', '00.000.000/0000-00', 'tax_id: a CNPJ whose digits are all the same is never issued.'],
    ['CNPJ', '529.982.247-25', 'tax_id: a CNPJ has 14 characters.'],
    ['CNPJ', '11.222.333/0001_81', 'tax_id: a CNPJ may contain only letters A-Z and digits, with ".", "/", "-" or spaces as separators.'],
  ])('refuses the %s %j with TAX_ID_INVALID', async (type, taxId, description) => {
    const m = await service().merchant();
    const response = await service().post('/checkout/person', personBody({ tax_id: taxId, tax_id_type: type }), { token: m.token });
    expectErrors(response, 400, [{ code: ERRORS.TAX_ID_INVALID.code, description }]);
    expect(typeof response.body.refresh_token).toBe('string');
    expect(response.text).not.toContain(taxId);
    expect(await personsOf(service(), m.merchant_id)).toEqual([]);
  });

  it('stores an optional phone in E.164 and refuses one that is not', async () => {
    const m = await service().merchant();
    const ok = await service().post('/checkout/person', personBody({ phone: '+55 (11) 98765-4321' }), { token: m.token });
    expect(ok.status, ok.text).toBe(200);
    expect((await personsOf(service(), m.merchant_id))[0]?.phone).toBe('+5511987654321');
    for (const phone of ['11987654321', '+0 11 98765-4321', '+1234567', '+1234567890123456', '+55 11 98765-4321 ext 2']) {
      const response = await service().post('/checkout/person', personBody({ phone }), { token: m.token });
      expectErrors(response, 400, [{ code: ERRORS.FIELD_FORMAT.code, description: expect.stringMatching(/^phone: must be an E\.164 number/) }]);
    }
    expect(await personsOf(service(), m.merchant_id)).toHaveLength(1);
  });

  it('answers each schema rule with its code, one item per field', async () => {
    const m = await service().merchant();
    const post = (body: unknown) => service().post('/checkout/person', body, { token: m.token });

    expectErrors(await post({}), 400, [
      { code: ERRORS.FIELD_REQUIRED.code, description: 'name: is required.' },
      { code: ERRORS.FIELD_REQUIRED.code, description: 'email: is required.' },
      { code: ERRORS.FIELD_REQUIRED.code, description: 'tax_id: is required.' },
      { code: ERRORS.FIELD_REQUIRED.code, description: 'tax_id_type: is required.' },
    ]);
    expectErrors(await post({ name: 1, email: true, tax_id: 52998224725, tax_id_type: 'CPF', phone: 5511987654321 }), 400, [
      { code: ERRORS.FIELD_TYPE.code, description: 'name: must be a string.' },
      { code: ERRORS.FIELD_TYPE.code, description: 'email: must be a string.' },
      { code: ERRORS.FIELD_TYPE.code, description: 'tax_id: must be a string.' },
      { code: ERRORS.FIELD_TYPE.code, description: 'phone: must be a string.' },
    ]);
    expectErrors(await post(personBody({ name: '', tax_id: '', phone: '' })), 400, [
      { code: ERRORS.FIELD_TOO_SHORT.code, description: 'name: must not be empty.' },
      { code: ERRORS.FIELD_TOO_SHORT.code, description: 'tax_id: must not be empty.' },
      { code: ERRORS.FIELD_TOO_SHORT.code, description: 'phone: must not be empty.' },
    ]);
    expectErrors(
      await post(personBody({ name: 'x'.repeat(201), email: `${'a'.repeat(250)}@x.io`, tax_id: '1'.repeat(33), phone: `+${'1'.repeat(32)}` })),
      400,
      [
        { code: ERRORS.FIELD_TOO_LONG.code, description: 'name: must be at most 200 characters long.' },
        { code: ERRORS.FIELD_TOO_LONG.code, description: 'email: must be at most 254 characters long.' },
        { code: ERRORS.FIELD_TOO_LONG.code, description: 'tax_id: must be at most 32 characters long.' },
        { code: ERRORS.FIELD_TOO_LONG.code, description: 'phone: must be at most 32 characters long.' },
      ],
    );
    for (const email of ['maria', 'maria@', '@example.com', 'maria silva@example.com', 'maria@example..com']) {
      expectErrors(await post(personBody({ email })), 400, [{ code: ERRORS.FIELD_FORMAT.code, description: 'email: must be a valid email.' }]);
    }
    expectErrors(await post(personBody({ tax_id_type: 'RG' })), 400, [
      { code: ERRORS.FIELD_NOT_ALLOWED.code, description: 'tax_id_type: must be one of CPF, CNPJ.' },
    ]);
    // The rules beyond the schema are reported together too.
    expectErrors(await post(personBody({ name: '   ', tax_id: '529.982.247-26', phone: '987654321' })), 400, [
      { code: ERRORS.FIELD_TOO_SHORT.code, description: 'name: must not be blank.' },
      { code: ERRORS.TAX_ID_INVALID.code, description: 'tax_id: the check digits do not match; this is not a valid CPF.' },
      { code: ERRORS.FIELD_FORMAT.code, description: expect.stringMatching(/^phone: /) },
    ]);
    // A schema failure and a rule beyond the schema in one answer: the e-mail and the CPF together.
    expectErrors(await post(personBody({ email: 'maria@', tax_id: '123.456.789-00' })), 400, [
      { code: ERRORS.FIELD_FORMAT.code, description: 'email: must be a valid email.' },
      { code: ERRORS.TAX_ID_INVALID.code, description: 'tax_id: the check digits do not match; this is not a valid CPF.' },
    ]);
    expect(await personsOf(service(), m.merchant_id)).toEqual([]);
  });

  it('requires a token', async () => {
    const response = await service().post('/checkout/person', personBody());
    expect(response.status).toBe(401);
  });
});

describeEachEngine('POST /checkout/card', (service) => {
  it('verifies and stores a card, answering only its masked number', async () => {
    const m = await service().merchant();
    const personId = await newPerson(service(), m);
    const body = cardBody(personId, { number: '4111 1111-1111 1111', exp_month: '07', holder_name: ' MARIA SILVA ' });
    const response = await service().post('/checkout/card', body, { token: m.token });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['card_scheme', 'masked_number', 'public_card_id', 'public_card_status', 'refresh_token']);
    expect(response.body).toMatchObject({ public_card_status: 'ACTIVE', card_scheme: 'VISA', masked_number: '411111******1111' });
    expect(response.body.public_card_id).toMatch(UUID);
    expect(response.text).not.toContain('4111111111111111');
    expect((await service().get('/me', { token: response.body.refresh_token })).status).toBe(200);

    const row = await findCard(service().ctx.db, m.merchant_id, response.body.public_card_id);
    expect(row).toMatchObject({
      merchant_id: m.merchant_id,
      person_id: personId,
      scheme: 'VISA',
      bin: '411111',
      last4: '1111',
      masked_number: '411111******1111',
      exp_month: 7,
      exp_year: body.exp_year,
      holder_name: 'MARIA SILVA',
      key_id: service().ctx.secretBox.currentKeyId,
      status: 'ACTIVE',
    });
    // The payments domain reads it back through the vault lookup.
    expect(processorCard(service().ctx.secretBox, row!)).toEqual({
      number: '4111111111111111',
      expMonth: 7,
      expYear: body.exp_year,
      holderName: 'MARIA SILVA',
      scheme: 'VISA',
    });
    // The processor saw the verification under the card's own reference.
    expect(await service().ctx.processor.status(m.merchant_id, `${response.body.public_card_id}:verify`)).toMatchObject({ status: 'APPROVED' });
  });

  it('accepts every contract test card with its scheme (verification fails only for the wrong-CVV card)', async () => {
    const m = await service().merchant();
    const personId = await newPerson(service(), m);
    for (const [number, scheme, masked] of TEST_CARDS) {
      const cvv = scheme === 'AMERICAN_EXPRESS' ? '1234' : '123';
      const response = await service().post('/checkout/card', cardBody(personId, { number, cvv }), { token: m.token });
      expect(response.status, `${number}: ${response.text}`).toBe(200);
      expect(response.body).toMatchObject({ card_scheme: scheme, masked_number: masked, public_card_status: 'ACTIVE' });
      expect(response.text).not.toContain(number);
    }
    const rows = await cardsOf(service(), m.merchant_id);
    expect(rows.map((r) => r.scheme).sort()).toEqual(TEST_CARDS.map(([, scheme]) => scheme).sort());
  });

  it.each([
    ['4111111111111112', 'CARD_NUMBER_INVALID', 'number: fails the Luhn check; a digit is probably mistyped.'],
    ['5555555555554445', 'CARD_NUMBER_INVALID', 'number: fails the Luhn check; a digit is probably mistyped.'],
    ['4111-1111-1111-111a', 'CARD_NUMBER_INVALID', 'number: may contain only digits, with spaces or hyphens between groups.'],
    ['4111.1111.1111.1111', 'CARD_NUMBER_INVALID', 'number: may contain only digits, with spaces or hyphens between groups.'],
    ['41111111111', 'CARD_NUMBER_INVALID', 'number: must have 12 to 19 digits.'],
    ['41111111111111111111', 'CARD_NUMBER_INVALID', 'number: must have 12 to 19 digits.'],
    ['4222222222222', 'CARD_NUMBER_INVALID', 'number: a VISA card number has 16, 18 or 19 digits.'],
    ['6200000000000005', 'CARD_SCHEME_UNSUPPORTED', ERRORS.CARD_SCHEME_UNSUPPORTED.description.replace('The card', 'the card')],
    ['6759649826438453', 'CARD_SCHEME_UNSUPPORTED', ERRORS.CARD_SCHEME_UNSUPPORTED.description.replace('The card', 'the card')],
  ] as const)('refuses the number %j with %s', async (number, key, description) => {
    const m = await service().merchant();
    const personId = await newPerson(service(), m);
    const response = await service().post('/checkout/card', cardBody(personId, { number }), { token: m.token });
    expectErrors(response, 400, [{ code: ERRORS[key].code, description }]);
    expect(response.text).not.toContain(number);
    expect(await cardsOf(service(), m.merchant_id)).toEqual([]);
  });

  it('checks the expiry: month, year, years ahead; integer or text', async () => {
    const m = await service().merchant();
    const personId = await newPerson(service(), m);
    const year = new Date().getUTCFullYear();
    const post = (overrides: Record<string, unknown>) => service().post('/checkout/card', cardBody(personId, overrides), { token: m.token });
    const invalidMonth = { code: ERRORS.CARD_EXPIRY_INVALID.code, description: 'exp_month: must be a month from 1 to 12.' };
    const invalidYear = { code: ERRORS.CARD_EXPIRY_INVALID.code, description: 'exp_year: must be a year of four digits, or of two read as 20yy.' };

    for (const exp_month of [0, 13, -1, '13', '00', 'ab', '1.']) expectErrors(await post({ exp_month }), 400, [invalidMonth]);
    for (const exp_year of [123, 10000, 'abcd', '203', '20xx']) expectErrors(await post({ exp_year }), 400, [invalidYear]);
    expectErrors(await post({ exp_year: year + 21 }), 400, [{ code: ERRORS.CARD_EXPIRY_INVALID.code, description: 'exp_year: must be at most 20 years ahead.' }]);
    // Wrong types and over-long text get the same rule, from the schema.
    expectErrors(await post({ exp_month: true, exp_year: null }), 400, [invalidMonth, invalidYear]);
    expectErrors(await post({ exp_month: 1.5, exp_year: '20300' }), 400, [invalidMonth, invalidYear]);
    expectErrors(await post({ exp_month: '123', exp_year: [2030] }), 400, [invalidMonth, invalidYear]);

    const accepted: [unknown, unknown, number][] = [
      [7, year + 3, 7],
      ['07', String(year + 3), 7],
      ['7', String(year + 3).slice(2), 7],
      [12, (year + 3) % 100, 12],
    ];
    for (const [exp_month, exp_year, month] of accepted) {
      const response = await post({ exp_month, exp_year });
      expect(response.status, response.text).toBe(200);
      const row = await findCard(service().ctx.db, m.merchant_id, response.body.public_card_id);
      expect([row?.exp_month, row?.exp_year]).toEqual([month, year + 3]);
    }
  });

  it('refuses a card once the merchant clock passes the end of its expiry month', async () => {
    const m = await service().merchant();
    const personId = await newPerson(service(), m);
    const now = new Date((await service().get('/sandbox/clock', { token: m.token })).body.now);
    // The card expires at the end of next month (UTC), so the test never starts at a month's edge.
    const expiry = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const endOfExpiryMonth = Date.UTC(expiry.getUTCFullYear(), expiry.getUTCMonth() + 1, 1);
    const body = cardBody(personId, { exp_month: expiry.getUTCMonth() + 1, exp_year: expiry.getUTCFullYear() });

    expect((await service().post('/checkout/card', body, { token: m.token })).status).toBe(200);
    // One minute before the month ends on the merchant clock, the card is still valid.
    const advance = async (seconds: number) => {
      const response = await service().post('/sandbox/clock/advance', { seconds }, { token: m.token });
      expect(response.status, response.text).toBe(200);
      return new Date(response.body.now);
    };
    const almost = await advance(Math.floor((endOfExpiryMonth - now.getTime()) / 1000) - 60);
    expect(endOfExpiryMonth - almost.getTime()).toBeGreaterThan(30_000);
    expect((await service().post('/checkout/card', body, { token: m.token })).status).toBe(200);

    await advance(120);
    const expired = await service().post('/checkout/card', body, { token: m.token });
    expectErrors(expired, 400, [
      { code: ERRORS.CARD_EXPIRED.code, description: 'exp_year: the card has expired; its expiry month is over on the merchant clock.' },
    ]);
    expect(await cardsOf(service(), m.merchant_id)).toHaveLength(2);
    // Another merchant's clock did not move: the same card is still valid there.
    const other = await service().merchant();
    expect((await service().post('/checkout/card', { ...body, public_person_id: await newPerson(service(), other) }, { token: other.token })).status).toBe(200);
  });

  it('checks the CVV against the scheme', async () => {
    const m = await service().merchant();
    const personId = await newPerson(service(), m);
    const post = (overrides: Record<string, unknown>) => service().post('/checkout/card', cardBody(personId, overrides), { token: m.token });
    const three = { code: ERRORS.CARD_CVV_INVALID.code, description: 'cvv: must be 3 digits.' };
    const four = { code: ERRORS.CARD_CVV_INVALID.code, description: 'cvv: must be 4 digits for an AMERICAN_EXPRESS card.' };

    for (const cvv of ['1234', '12', '12a', ' 123', '１２３']) expectErrors(await post({ cvv }), 400, [three]);
    for (const cvv of ['123', '123a', '12 4']) expectErrors(await post({ number: '378282246310005', cvv }), 400, [four]);
    expectErrors(await post({ cvv: '' }), 400, [{ code: ERRORS.FIELD_TOO_SHORT.code, description: 'cvv: must not be empty.' }]);
    expectErrors(await post({ cvv: '12345' }), 400, [{ code: ERRORS.FIELD_TOO_LONG.code, description: 'cvv: must be at most 4 characters long.' }]);
    expectErrors(await post({ cvv: 123 }), 400, [{ code: ERRORS.FIELD_TYPE.code, description: 'cvv: must be a string.' }]);
    expect((await post({ cvv: '012' })).status).toBe(200);
    expect((await post({ number: '378282246310005', cvv: '0123' })).status).toBe(200);
  });

  it('answers each schema rule with its code, and every failing field together', async () => {
    const m = await service().merchant();
    const personId = await newPerson(service(), m);
    const post = (body: unknown) => service().post('/checkout/card', body, { token: m.token });

    expectErrors(
      await post({}),
      400,
      ['public_person_id', 'number', 'exp_month', 'exp_year', 'cvv', 'holder_name'].map((field) => ({
        code: ERRORS.FIELD_REQUIRED.code,
        description: `${field}: is required.`,
      })),
    );
    expectErrors(await post(cardBody(personId, { number: 4111111111111111, holder_name: ['MARIA'] })), 400, [
      { code: ERRORS.FIELD_TYPE.code, description: 'number: must be a string.' },
      { code: ERRORS.FIELD_TYPE.code, description: 'holder_name: must be a string.' },
    ]);
    expectErrors(await post(cardBody('x'.repeat(65), { number: '4'.repeat(33), exp_month: '123', exp_year: '20300', holder_name: 'M'.repeat(101) })), 400, [
      { code: ERRORS.FIELD_TOO_LONG.code, description: 'public_person_id: must be at most 64 characters long.' },
      { code: ERRORS.FIELD_TOO_LONG.code, description: 'number: must be at most 32 characters long.' },
      { code: ERRORS.CARD_EXPIRY_INVALID.code, description: 'exp_month: must be a month from 1 to 12.' },
      { code: ERRORS.CARD_EXPIRY_INVALID.code, description: 'exp_year: must be a year of four digits, or of two read as 20yy.' },
      { code: ERRORS.FIELD_TOO_LONG.code, description: 'holder_name: must be at most 100 characters long.' },
    ]);
    expectErrors(await post(cardBody(personId, { holder_name: '   ' })), 400, [{ code: ERRORS.FIELD_TOO_SHORT.code, description: 'holder_name: must not be blank.' }]);
    expectErrors(await post(cardBody(personId, { holder_name: '4111 1111 1111 1111' })), 400, [
      { code: ERRORS.FIELD_FORMAT.code, description: 'holder_name: must be the name printed on the card, not a number.' },
    ]);
    // Field rules are checked before the person is looked up, all at once, in request order.
    expectErrors(await post(cardBody('no-such-person', { number: '4111111111111112', exp_month: 13, cvv: '12', holder_name: ' ' })), 400, [
      { code: ERRORS.CARD_NUMBER_INVALID.code, description: 'number: fails the Luhn check; a digit is probably mistyped.' },
      { code: ERRORS.CARD_EXPIRY_INVALID.code, description: 'exp_month: must be a month from 1 to 12.' },
      { code: ERRORS.CARD_CVV_INVALID.code, description: 'cvv: must be 3 or 4 digits.' },
      { code: ERRORS.FIELD_TOO_SHORT.code, description: 'holder_name: must not be blank.' },
    ]);
    expect(await cardsOf(service(), m.merchant_id)).toEqual([]);
    expect((await service().post('/checkout/card', cardBody(personId))).status).toBe(401);
  });

  it('answers 400 CARD_VERIFICATION_FAILED for the wrong-CVV card and stores nothing', async () => {
    const m = await service().merchant();
    const personId = await newPerson(service(), m);
    const response = await service().post('/checkout/card', cardBody(personId, { number: CVV_FAILURE_CARD }), { token: m.token });
    expectErrors(response, 400, [
      { code: ERRORS.CARD_VERIFICATION_FAILED.code, description: 'The processor declined the card verification (CVV verification failed); nothing was stored.' },
    ]);
    expect(typeof response.body.refresh_token).toBe('string');
    expect(response.text).not.toContain(CVV_FAILURE_CARD);
    expect(await cardsOf(service(), m.merchant_id)).toEqual([]);
  });

  it.each(['UNAVAILABLE', 'TIMEOUT'])('answers 502 EXTERNAL_API when the processor is %s, stores nothing, and a retry succeeds', async (fault) => {
    const m = await service().merchant();
    const personId = await newPerson(service(), m);
    const armed = await service().post('/sandbox/processor/faults', { operation: 'verifyCard', fault, times: 1 }, { token: m.token });
    expect(armed.status, armed.text).toBe(200);

    const failed = await service().post('/checkout/card', cardBody(personId), { token: m.token, headers: { 'idempotency-key': `card-${fault}` } });
    expectErrors(failed, 502, [{ code: ERRORS.EXTERNAL_API.code, description: ERRORS.EXTERNAL_API.description }]);
    expect(await cardsOf(service(), m.merchant_id)).toEqual([]);

    // A 5xx releases the idempotency key, so the same retry runs again and now succeeds.
    const retried = await service().post('/checkout/card', cardBody(personId), { token: m.token, headers: { 'idempotency-key': `card-${fault}` } });
    expect(retried.status, retried.text).toBe(200);
    expect(await cardsOf(service(), m.merchant_id)).toHaveLength(1);
  });

  it("answers 404 for another merchant's person, an unknown id or a malformed one, revealing nothing", async () => {
    const owner = await service().merchant();
    const personId = await newPerson(service(), owner);
    const intruder = await service().merchant();
    for (const id of [personId, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const response = await service().post('/checkout/card', cardBody(id), { token: intruder.token });
      expectErrors(response, 400, [{ code: ERRORS.PERSON_NOT_FOUND.code, description: 'public_person_id: person not found.' }]);
      expect(response.text).not.toContain('Maria');
      expect(response.text).not.toContain('maria@example.com');
    }
    expect(await cardsOf(service(), intruder.merchant_id)).toEqual([]);
    // The processor was never asked: ownership is settled before the card leaves Colibri.
    const operations = await service().ctx.db.selectFrom('sandbox_operations').select('reference').where('merchant_id', '=', intruder.merchant_id).execute();
    expect(operations).toEqual([]);
    // The owner can still use the person.
    expect((await service().post('/checkout/card', cardBody(personId), { token: owner.token })).status).toBe(200);
  });
});
