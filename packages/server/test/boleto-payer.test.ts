import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepBoletoFiles } from '../src/checkout/boleto-bank';
import { checkPayer, PAGE_PAYER_FIELDS, remessaPayer } from '../src/checkout/boleto-payer';
import { buildRemessa, type Beneficiary, type RemessaEntry } from '../src/connectors/boleto/remessa';
import { redactSensitive } from '../src/logger';
import { boletoEnv, newFolders, PAYER_AT_GENERATION, startPixPsp } from './boleto-fixtures';
import { CnabBankFake } from './fakes/cnab-bank-fake';
import { ENGINES, startTestService, type TestMerchant, type TestService } from './harness';

const MASTER_KEY = Buffer.alloc(32, 21).toString('base64');

const beneficiary: Beneficiary = {
  bankCode: '001',
  agreement: '1234567',
  agency: '1234',
  agencyDigit: '0',
  account: '56789',
  accountDigit: '5',
  wallet: '17',
  walletVariation: '019',
  companyDocument: '12345678000195',
  companyName: 'Colibri Pagamentos',
};

const entry = (nossoNumero: string, payer: RemessaEntry['payer']): RemessaEntry => ({
  movement: 'REGISTER',
  nossoNumero,
  documentNumber: nossoNumero.slice(-10),
  dueDate: '2026-03-05',
  amountMinor: 15990n,
  issuedOn: '2026-03-02',
  companyReference: '',
  merchantName: 'Loja Azul',
  payer,
});

/**
 * Segment Q read back by FEBRABAN's positions (CNAB 240 v10, "Registro Detalhe - Segmento Q"), written
 * out here as the manual prints them (1-based, inclusive), not taken from Colibri's tables.
 */
function readSegmentQ(line: string) {
  const at = (from: number, to: number) => line.slice(from - 1, to);
  return {
    segment: at(14, 14),
    movement: at(16, 17),
    documentType: at(18, 18),
    document: at(19, 33),
    name: at(34, 73),
    address: at(74, 113),
    district: at(114, 128),
    zip: at(129, 133),
    zipSuffix: at(134, 136),
    city: at(137, 151),
    state: at(152, 153),
    guarantorName: at(170, 209).trimEnd(),
  };
}

function segmentQs(content: string) {
  return content.slice(0, -2).split('\r\n').filter((line) => line[7] === '3' && line[13] === 'Q').map(readSegmentQ);
}

describe('segment Q of a remessa carries the payer', () => {
  it('writes a CPF payer at FEBRABAN positions 18-153: type 1, the CPF in 15 digits, name, address, district, CEP, city and UF', () => {
    const { content } = buildRemessa({
      beneficiary,
      sequence: 1,
      generatedOn: '2026-03-02',
      generatedAt: '101500',
      entries: [entry('12345670000000042', { documentType: '1', document: '52998224725', name: 'Ana Conceição Souza', address: 'Avenida Paulista, 1000 ap 12', district: 'Bela Vista', postalCode: '01310100', city: 'São Paulo', state: 'SP' })],
    });
    const [q] = segmentQs(content);
    expect(q).toEqual({
      segment: 'Q',
      movement: '01',
      documentType: '1',
      document: '000052998224725',
      name: 'ANA CONCEICAO SOUZA'.padEnd(40),
      address: 'AVENIDA PAULISTA, 1000 AP 12'.padEnd(40),
      district: 'BELA VISTA'.padEnd(15),
      zip: '01310',
      zipSuffix: '100',
      city: 'SAO PAULO'.padEnd(15),
      state: 'SP',
      guarantorName: 'LOJA AZUL',
    });
    for (const line of content.slice(0, -2).split('\r\n')) expect(line).toHaveLength(240);
  });

  it('writes a CNPJ payer as type 2 with its 14 digits, cuts long text to its field, and type 0 with blanks without a payer', () => {
    const { content } = buildRemessa({
      beneficiary,
      sequence: 2,
      generatedOn: '2026-03-02',
      generatedAt: '101500',
      entries: [
        entry('12345670000000043', { documentType: '2', document: '11222333000181', name: 'Comércio de Peças e Acessórios Automotivos do Brasil Ltda', address: 'Rua Doutor Antônio Bento de Oliveira Figueiredo, 1234 sala 5', district: 'Jardim das Acácias do Sul', postalCode: '04707000', city: 'Santana de Parnaíba', state: 'SP' }),
        entry('12345670000000044', undefined),
      ],
    });
    const [cnpj, none] = segmentQs(content);
    expect(cnpj).toMatchObject({ documentType: '2', document: '011222333000181', zip: '04707', zipSuffix: '000', state: 'SP' });
    expect(cnpj!.name).toBe('COMERCIO DE PECAS E ACESSORIOS AUTOMOTIV');
    expect(cnpj!.address).toBe('RUA DOUTOR ANTONIO BENTO DE OLIVEIRA FIG');
    expect(cnpj!.district).toBe('JARDIM DAS ACAC');
    expect(cnpj!.city).toBe('SANTANA DE PARN');
    expect(none).toMatchObject({ documentType: '0', document: '0'.repeat(15), name: ' '.repeat(40), address: ' '.repeat(40), zip: '00000', zipSuffix: '000', state: '  ' });
  });
});

describe('checking a payer', () => {
  const base = { name: 'Ana', taxId: '529.982.247-25', street: 'Rua A', number: '10', district: 'Centro', city: 'Recife', state: 'pe', postalCode: '50030-230' };

  it('takes a valid CPF or CNPJ payer and returns it compact', () => {
    expect(checkPayer(base, PAGE_PAYER_FIELDS)).toEqual({ ok: true, payer: expect.objectContaining({ taxIdType: 'CPF', taxId: '52998224725', state: 'PE', postalCode: '50030230', complement: null }) });
    expect(checkPayer({ ...base, taxId: '11.222.333/0001-81' }, PAGE_PAYER_FIELDS)).toMatchObject({ ok: true, payer: { taxIdType: 'CNPJ', taxId: '11222333000181' } });
  });

  it("writes the address line in segment Q's 40 characters, cutting the street before the number", () => {
    const checked = checkPayer({ ...base, street: 'Rua Doutor Antônio Bento de Oliveira Figueiredo', number: '1234', complement: 'sala 5' }, PAGE_PAYER_FIELDS);
    if (!checked.ok) throw new Error('a valid payer');
    expect(remessaPayer(checked.payer).address).toBe('Rua Doutor Antônio Bento de, 1234 sala 5');
    expect(remessaPayer({ ...checked.payer, street: 'Rua A', complement: null }).address).toBe('Rua A, 1234');
  });

  it('names every failing field, never its value', () => {
    const checked = checkPayer({ ...base, name: ' ', taxId: '529.982.247-24', state: 'XX', postalCode: '5003023', district: '' }, PAGE_PAYER_FIELDS);
    expect(checked.ok).toBe(false);
    const failures = checked.ok ? [] : checked.failures;
    expect(failures.map((f) => [f.key, f.description.split(':')[0]])).toEqual([
      ['FIELD_TOO_SHORT', 'payer.name'],
      ['TAX_ID_INVALID', 'payer.tax_id'],
      ['FIELD_TOO_SHORT', 'payer.district'],
      ['FIELD_FORMAT', 'payer.state'],
      ['FIELD_FORMAT', 'payer.postal_code'],
    ]);
    expect(JSON.stringify(failures)).not.toContain('52998224724');
    // A CNPJ with letters is valid, but the numeric field of segment Q cannot carry it yet.
    const alphanumeric = checkPayer({ ...base, taxId: '12.ABC.345/01DE-35' }, PAGE_PAYER_FIELDS);
    expect(alphanumeric).toMatchObject({ ok: false, failures: [{ key: 'TAX_ID_INVALID', description: expect.stringContaining('digits only') }] });
  });

  it("redacts the payer's tax id wherever it is logged as a field", () => {
    expect(redactSensitive({ registration: { payer_tax_id: '52998224725', payer_name: 'Ana' } })).toEqual({ registration: { payer_tax_id: '[redacted]', payer_name: 'Ana' } });
  });
});

const generateBody = (merchant: TestMerchant, method: string | string[], extra: Record<string, unknown> = {}) => ({
  contractId: merchant.contract_id,
  amount: '25.00',
  asset: 'BRL',
  method,
  referenceId: `order-${Date.now()}-${Math.random()}`,
  expiresIn: 900,
  ...extra,
});

const PAGE_PAYER = { name: 'Carla Dias', tax_id: '11.222.333/0001-81', postal_code: '20040-020', street: 'Rua da Assembleia', number: '10', complement: 'sala 2', district: 'Centro', city: 'Rio de Janeiro', state: 'rj' };

for (const engine of ENGINES) {
  describe(`live mode: a boleto registered with a bank needs its payer [${engine}]`, () => {
    let service: TestService;
    let root: string;
    let bank: CnabBankFake;
    let merchant: TestMerchant;

    let pix: Awaited<ReturnType<typeof startPixPsp>>;

    // PIX through a PSP beside the bank: live mode offers a multi-method session only with a connector for each method.
    beforeAll(async () => {
      pix = await startPixPsp();
      root = newFolders();
      service = await startTestService(engine, {
        env: { COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_LIVE_METHODS: 'BOLETO,PIX', COLIBRI_BOLETO_SWEEP_MS: '3600000', COLIBRI_PIX_RECONCILE_MS: '3600000', ...boletoEnv(root), ...pix.env },
      });
      bank = new CnabBankFake(join(root, 'outbox'), join(root, 'inbox'), undefined, { strict: true });
      merchant = await service.merchant('Loja Payer');
    });
    afterAll(async () => {
      await service?.close();
      await pix?.stop();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    const registrationOf = (token: string) => service.ctx.db.selectFrom('boleto_registrations').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
    const registrations = async () => Number((await service.ctx.db.selectFrom('boleto_registrations').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

    it('refuses a single-method boleto without its payer at generation (03.01.0007), and stores nothing', async () => {
      const before = await registrations();
      const refused = await service.post('/checkout/generate', generateBody(merchant, 'BOLETO'), { token: merchant.token });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([{ code: '03.01.0007', description: expect.stringContaining('customer, billingAddress') }]);
      expect(await registrations()).toBe(before);
    });

    it('checks the payer given at generation: check digits, CEP, UF, the two objects together', async () => {
      const bad = await service.post(
        '/checkout/generate',
        generateBody(merchant, 'BOLETO', { customer: { id: '529.982.247-24', name: 'Ana' }, billingAddress: { ...PAYER_AT_GENERATION.billingAddress, postalCode: '0131010', regionCode: 'ZZ' } }),
        { token: merchant.token },
      );
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e: { code: string; description: string }) => [e.code, e.description.split(':')[0]])).toEqual([
        ['00.07.0001', 'customer.id'],
        ['00.01.0003', 'billingAddress.regionCode'],
        ['00.01.0003', 'billingAddress.postalCode'],
      ]);
      const alone = await service.post('/checkout/generate', generateBody(merchant, 'BOLETO', { customer: PAYER_AT_GENERATION.customer }), { token: merchant.token });
      expect(alone.status).toBe(400);
      expect(alone.body.errors[0]).toMatchObject({ code: '00.01.0001', description: expect.stringContaining('billingAddress: is required with customer') });
      const abroad = await service.post('/checkout/generate', generateBody(merchant, 'BOLETO', { ...PAYER_AT_GENERATION, billingAddress: { ...PAYER_AT_GENERATION.billingAddress, country: 'ARG' } }), { token: merchant.token });
      expect(abroad.body.errors[0]).toMatchObject({ code: '00.01.0003', description: expect.stringContaining('billingAddress.country') });
    });

    it("registers the generation's payer, writes it in segment Q, and a strict bank registers the boleto", async () => {
      const generated = await service.post('/checkout/generate', generateBody(merchant, 'BOLETO', PAYER_AT_GENERATION), { token: merchant.token });
      expect(generated.status, JSON.stringify(generated.body)).toBe(200);
      const token = generated.body.payment.payment_token as string;
      expect(await registrationOf(token)).toMatchObject({
        payer_tax_id_type: 'CPF',
        payer_tax_id: '52998224725',
        payer_name: 'Ana Souza',
        payer_address: 'Avenida Paulista, 1000',
        payer_district: 'Bela Vista',
        payer_city: 'São Paulo',
        payer_state: 'SP',
        payer_postal_code: '01310100',
      });
      const { remessa } = await sweepBoletoFiles(service.ctx, { force: true });
      const q = segmentQs(readFileSync(join(root, 'outbox', remessa!), 'latin1'))[0]!;
      expect(q).toMatchObject({ documentType: '1', document: '000052998224725', name: 'ANA SOUZA'.padEnd(40), zip: '01310', zipSuffix: '100', city: 'SAO PAULO'.padEnd(15), state: 'SP' });
      const [read] = bank.collect();
      expect(bank.problems).toEqual([]);
      const nossoNumero = (await registrationOf(token)).nosso_numero;
      expect(bank.titles.get(nossoNumero)).toMatchObject({ rejectedFor: [], payer: { documentType: '1', name: 'ANA SOUZA' } });
      bank.drop(bank.retornoContent(bank.answers(read!)));
      await sweepBoletoFiles(service.ctx, { force: true });
      expect(await registrationOf(token)).toMatchObject({ status: 'REGISTERED' });
    });

    it("asks for the payer on the page of a multi-method session, refuses the boleto attempt without it, and registers the page's payer", async () => {
      const generated = await service.post('/checkout/generate', generateBody(merchant, ['PIX', 'BOLETO']), { token: merchant.token });
      expect(generated.status, JSON.stringify(generated.body)).toBe(200);
      const id = generated.body.checkout_id as string;
      const choose = await service.get(`/pay/${id}?lang=pt`);
      expect(choose.text).toContain(`href="/pay/${id}?lang=pt&amp;method=BOLETO" data-method="BOLETO"`);
      const form = await service.get(`/pay/${id}?lang=pt&method=BOLETO`);
      expect(form.text).toContain('data-view="boleto-payer"');
      expect(form.text).toContain('id="payer-postal_code"');

      const without = await service.post(`/pay/${id}/attempts`, { method: 'BOLETO' });
      expect(without.status).toBe(400);
      expect(without.body.errors[0].code).toBe('03.01.0007');
      const wrong = await service.post(`/pay/${id}/attempts`, { method: 'BOLETO', payer: { ...PAGE_PAYER, tax_id: '11.222.333/0001-82', postal_code: '2004' } });
      expect(wrong.status).toBe(400);
      expect(wrong.body.errors.map((e: { code: string; description: string }) => [e.code, e.description.split(':')[0]])).toEqual([
        ['00.07.0001', 'payer.tax_id'],
        ['00.01.0003', 'payer.postal_code'],
      ]);
      const missing = await service.post(`/pay/${id}/attempts`, { method: 'BOLETO', payer: { name: 'Carla' } });
      expect(missing.status).toBe(400);

      const started = await service.post(`/pay/${id}/attempts`, { method: 'BOLETO', payer: PAGE_PAYER });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      expect(await registrationOf(started.body.payment_token)).toMatchObject({ payer_tax_id_type: 'CNPJ', payer_tax_id: '11222333000181', payer_address: 'Rua da Assembleia, 10 sala 2', payer_state: 'RJ', payer_postal_code: '20040020' });
      // The session keeps the payer: the page no longer asks, and shows the boleto.
      const page = await service.get(`/pay/${id}?lang=pt&method=BOLETO`);
      expect(page.text).toContain('data-view="boleto"');
      const { remessa } = await sweepBoletoFiles(service.ctx, { force: true });
      const qs = segmentQs(readFileSync(join(root, 'outbox', remessa!), 'latin1'));
      expect(qs).toEqual([expect.objectContaining({ documentType: '2', document: '011222333000181', name: 'CARLA DIAS'.padEnd(40), zip: '20040', zipSuffix: '020', state: 'RJ' })]);
    });
  });
}

for (const engine of ENGINES) {
  describe(`sandbox mode with a bank: boletos without a payer, and a strict bank [${engine}]`, () => {
    let service: TestService;
    let root: string;
    let strict: CnabBankFake;
    let lenient: CnabBankFake;
    let merchant: TestMerchant;

    beforeAll(async () => {
      root = newFolders();
      service = await startTestService(engine, { env: { COLIBRI_MODE: 'sandbox', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_ROUTING: 'BOLETO=cnab', COLIBRI_BOLETO_SWEEP_MS: '3600000', ...boletoEnv(root) } });
      strict = new CnabBankFake(join(root, 'outbox'), join(root, 'inbox'), undefined, { strict: true });
      lenient = new CnabBankFake(join(root, 'outbox'), join(root, 'inbox'));
      merchant = await service.merchant('Loja Sandbox');
    });
    afterAll(async () => {
      await service?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    const boleto = async (extra: Record<string, unknown> = {}) => {
      const generated = await service.post('/checkout/generate', generateBody(merchant, 'BOLETO', extra), { token: merchant.token });
      expect(generated.status, JSON.stringify(generated.body)).toBe(200);
      const token = generated.body.payment.payment_token as string;
      const registration = await service.ctx.db.selectFrom('boleto_registrations').select(['nosso_numero', 'payer_tax_id']).where('payment_token', '=', token).executeTakeFirstOrThrow();
      return { token, nossoNumero: registration.nosso_numero, payerTaxId: registration.payer_tax_id };
    };
    const stateOf = async (token: string) => ({
      payment: await service.ctx.db.selectFrom('payments').select(['status', 'error_code', 'error_description']).where('payment_token', '=', token).executeTakeFirstOrThrow(),
      registration: await service.ctx.db.selectFrom('boleto_registrations').select(['status', 'result_code']).where('payment_token', '=', token).executeTakeFirstOrThrow(),
    });

    it('a strict bank rejects a boleto without its payer (45, 46, 47, 48), translated; it registers one with the payer', async () => {
      const without = await boleto();
      expect(without.payerTaxId).toBeNull();
      const withPayer = await boleto(PAYER_AT_GENERATION);
      await sweepBoletoFiles(service.ctx, { force: true });
      const [remessa] = strict.collect();
      expect(strict.problems).toEqual([]);
      expect(strict.titles.get(without.nossoNumero)?.rejectedFor).toEqual(['45', '46', '47', '48']);
      expect(strict.titles.get(withPayer.nossoNumero)?.rejectedFor).toEqual([]);
      strict.drop(strict.retornoContent(strict.answers(remessa!)));
      await sweepBoletoFiles(service.ctx, { force: true });
      const rejected = await stateOf(without.token);
      expect(rejected.registration).toEqual({ status: 'REJECTED', result_code: 'INVALID_REQUEST' });
      expect(rejected.payment).toMatchObject({ status: 'ERROR', error_code: 'INVALID_REQUEST' });
      expect(rejected.payment.error_description).toContain("45 The payer's name is missing; 46 The payer's CPF or CNPJ is missing or invalid; 47 The payer's address is missing; 48 The payer's postal code is invalid");
      expect(await stateOf(withPayer.token)).toMatchObject({ registration: { status: 'REGISTERED' }, payment: { status: 'CREATED' } });
    });

    it('a lenient bank registers a boleto without its payer', async () => {
      const without = await boleto();
      await sweepBoletoFiles(service.ctx, { force: true });
      const remessa = lenient.collect().at(-1);
      expect(lenient.problems).toEqual([]);
      expect(lenient.titles.get(without.nossoNumero)).toMatchObject({ rejectedFor: [], payer: { documentType: '0' } });
      lenient.drop(lenient.retornoContent(lenient.answers(remessa!), { sequence: 900 }));
      await sweepBoletoFiles(service.ctx, { force: true });
      expect(await stateOf(without.token)).toMatchObject({ registration: { status: 'REGISTERED' }, payment: { status: 'CREATED' } });
    });
  });
}
