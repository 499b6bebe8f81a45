import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepBoletoFiles } from '../src/checkout/boleto-bank';
import { pixTxid, reconcilePixCharges } from '../src/checkout/pix-charges';
import { brasiliaDate } from '../src/checkout/boleto-term';
import { loadConfig } from '../src/config';
import { RETURN_MOVEMENTS, REJECTION_REASONS, translateRejection } from '../src/connectors/boleto/boleto-codes';
import { registersBoletos } from '../src/connectors/boleto/boleto-connector';
import { FEBRABAN_240, layoutFor } from '../src/connectors/boleto/cnab240-layout';
import { assertLayout } from '../src/connectors/boleto/cnab240';
import { runDoctor } from '../src/connectors/doctor';
import { planConnectors } from '../src/connectors/plan';
import { OUTCOME_CODES } from '../src/processor/outcome-codes';
import { parseBoleto } from '../src/rails/boleto';
import { CnabBankFake } from './fakes/cnab-bank-fake';
import type { PixPspFake } from './fakes/pix-psp-fake';
import { boletoEnv, newFolders, PAYER_AT_GENERATION, startPixPsp } from './boleto-fixtures';
import { ENGINES, startTestService, type TestMerchant, type TestService } from './harness';

const MASTER_KEY = Buffer.alloc(32, 21).toString('base64');

/**
 * A reader of remessas written in this test from FEBRABAN's layout, independent of Colibri's tables: the
 * records in order, every line 240 characters, the record numbers, the trailers' counts and sums.
 */
function readRemessaIndependently(content: string) {
  expect(content.endsWith('\r\n')).toBe(true);
  const lines = content.slice(0, -2).split('\r\n');
  for (const line of lines) expect(line).toHaveLength(240);
  const kinds = lines.map((line) => (line[7] === '3' ? `3${line[13]}` : line[7]));
  expect(kinds[0]).toBe('0');
  expect(kinds[1]).toBe('1');
  expect(kinds.at(-2)).toBe('5');
  expect(kinds.at(-1)).toBe('9');
  const details = lines.slice(2, -2);
  const titles: { nossoNumero: string; amountMinor: bigint; dueDate: string; movement: string }[] = [];
  let registeredTotal = 0n;
  for (const [i, line] of details.entries()) {
    expect(Number(line.slice(8, 13))).toBe(i + 1);
    expect(line.slice(3, 7)).toBe('0001');
    if (line[13] === 'P') {
      const amountMinor = BigInt(line.slice(85, 100));
      titles.push({ nossoNumero: line.slice(37, 57).trim(), amountMinor, dueDate: line.slice(77, 85), movement: line.slice(15, 17) });
      if (line.slice(15, 17) === '01') {
        registeredTotal += amountMinor;
        expect(details[i + 1]?.[13]).toBe('Q');
        expect(details[i + 2]?.[13]).toBe('R');
      }
    }
  }
  const trailer = lines.at(-2)!;
  expect(Number(trailer.slice(17, 23))).toBe(details.length + 2);
  expect(Number(trailer.slice(23, 29))).toBe(titles.filter((t) => t.movement === '01').length);
  expect(BigInt(trailer.slice(29, 46))).toBe(registeredTotal);
  const last = lines.at(-1)!;
  expect(last.slice(3, 8)).toBe('99999');
  expect(Number(last.slice(17, 23))).toBe(1);
  expect(Number(last.slice(23, 29))).toBe(lines.length);
  expect(lines[0]!.slice(142, 143)).toBe('1');
  return { lines, titles, sequence: Number(lines[0]!.slice(157, 163)) };
}

describe('CNAB 240 layouts', () => {
  it("covers the 240 positions of every record, FEBRABAN's and Banco do Brasil's", () => {
    assertLayout(FEBRABAN_240);
    assertLayout(layoutFor('001'));
    expect(() => layoutFor('999')).toThrow(/no CNAB 240 profile/);
    for (const code of ['constructor', 'toString', '__proto__']) expect(() => layoutFor(code), code).toThrow(/no CNAB 240 profile/);
  });

  it('translates rejections by their first known reason, naming every reason, and takes 63 as registered', () => {
    expect(translateRejection(['46'])).toEqual({ code: 'INVALID_REQUEST', description: expect.stringContaining("46 The payer's CPF or CNPJ is missing or invalid") });
    expect(translateRejection(['99', '07'])?.code).toBe('CONNECTOR_AUTH');
    expect(translateRejection(['20'])?.code).toBe('13');
    expect(translateRejection(['63'])).toBeNull();
    for (const reason of Object.values(REJECTION_REASONS)) if (reason.code !== 'ALREADY_REGISTERED') expect(OUTCOME_CODES).toHaveProperty(reason.code);
  });

  it('prints its translation tables in docs/connectors.md', () => {
    const page = readFileSync(new URL('../../../docs/connectors.md', import.meta.url), 'utf8');
    for (const [code, movement] of Object.entries(RETURN_MOVEMENTS)) expect(page).toContain(`| \`${code}\` | ${movement.bank} | ${movement.kind} |`);
    for (const [code, reason] of Object.entries(REJECTION_REASONS)) expect(page).toContain(`| \`${code}\` | ${reason.bank} | \`${reason.code}\` |`);
  });
});

describe('live start checks and colibri doctor for boletos', () => {
  it('refuses to start in live mode with BOLETO enabled, naming every missing setting', () => {
    const config = loadConfig({ COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_LIVE_METHODS: 'BOLETO', COLIBRI_BOLETO_BANK: '001' });
    expect(() => planConnectors(config)).toThrow(
      /BOLETO: set COLIBRI_BOLETO_OUTBOX, COLIBRI_BOLETO_INBOX, COLIBRI_BOLETO_AGREEMENT, COLIBRI_BOLETO_AGENCY, COLIBRI_BOLETO_ACCOUNT, COLIBRI_BOLETO_WALLET, COLIBRI_BOLETO_COMPANY_DOCUMENT, COLIBRI_BOLETO_COMPANY_NAME \(connector cnab\)/,
    );
  });

  it('checks the settings and that both folders exist and are writable', async () => {
    const root = newFolders();
    try {
      const lines: string[] = [];
      const ok = await runDoctor(loadConfig({ COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_LIVE_METHODS: 'BOLETO', ...boletoEnv(root) }), (line) => lines.push(line));
      expect(lines.join('\n')).toContain('BOLETO     → cnab');
      expect(lines.join('\n')).toMatch(/ok {3}cnab: outbox folder: .*exists and is writable/);
      expect(ok).toBe(true);
      rmSync(join(root, 'inbox'), { recursive: true });
      const failing: string[] = [];
      expect(await runDoctor(loadConfig({ COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_LIVE_METHODS: 'BOLETO', ...boletoEnv(root), COLIBRI_BOLETO_WALLET: '17-019' }), (line) => failing.push(line))).toBe(false);
      expect(failing.join('\n')).toMatch(/FAIL cnab: inbox folder: .*ENOENT/);
      const bad: string[] = [];
      expect(await runDoctor(loadConfig({ COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_LIVE_METHODS: 'BOLETO', ...boletoEnv(root), COLIBRI_BOLETO_AGREEMENT: '12345' }), (line) => bad.push(line))).toBe(false);
      expect(bad.join('\n')).toContain('COLIBRI_BOLETO_AGREEMENT must be the 7-digit agreement');
      // A bank code named like what every object inherits is no bank Colibri has a profile for.
      const noBank: string[] = [];
      expect(await runDoctor(loadConfig({ COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_LIVE_METHODS: 'BOLETO', ...boletoEnv(root), COLIBRI_BOLETO_BANK: 'constructor' }), (line) => noBank.push(line))).toBe(false);
      expect(noBank.join('\n')).toContain('COLIBRI_BOLETO_BANK must be a bank Colibri has a CNAB 240 profile for (001), got "constructor"');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

for (const engine of ENGINES) {
  describe(`boletos registered with a bank through CNAB 240 files [${engine}]`, () => {
    let service: TestService;
    let root: string;
    let bank: CnabBankFake;
    let merchant: TestMerchant;
    const today = brasiliaDate(new Date());

    beforeAll(async () => {
      root = newFolders();
      service = await startTestService(engine, { env: { COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_LIVE_METHODS: 'BOLETO', COLIBRI_BOLETO_SWEEP_MS: '3600000', ...boletoEnv(root) } });
      bank = new CnabBankFake(join(root, 'outbox'), join(root, 'inbox'));
      merchant = await service.merchant('Loja Açaí & Cia');
    });
    afterAll(async () => {
      await service?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    const sweep = () => sweepBoletoFiles(service.ctx, { force: true });
    const boleto = async (amount = '25.00') => {
      const generated = await service.post('/checkout/generate', { contractId: merchant.contract_id, amount, asset: 'BRL', method: 'BOLETO', referenceId: `order-${Date.now()}-${Math.random()}`, expiresIn: 900, ...PAYER_AT_GENERATION }, { token: merchant.token });
      expect(generated.status, JSON.stringify(generated.body)).toBe(200);
      const token = generated.body.payment.payment_token as string;
      const registration = await service.ctx.db.selectFrom('boleto_registrations').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
      return { token, checkoutId: generated.body.checkout_id as string, nossoNumero: registration.nosso_numero, view: generated.body.payment as { boleto: { digitable_line: string; barcode: string; due_date: string } } };
    };
    const paymentOf = (token: string) => service.ctx.db.selectFrom('payments').select(['status', 'error_code', 'error_description', 'captured_minor']).where('payment_token', '=', token).executeTakeFirstOrThrow();
    const registrationOf = (token: string) => service.ctx.db.selectFrom('boleto_registrations').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
    const historyOf = async (token: string) => (await service.ctx.db.selectFrom('payment_status_history').select('status').where('payment_token', '=', token).orderBy('position').execute()).map((h) => h.status);
    const findingsOf = (token: string) => service.ctx.db.selectFrom('boleto_findings').selectAll().where('payment_token', '=', token).execute();

    it('routes BOLETO to the bank connector and shows the bank boleto, its number starting with the agreement', async () => {
      expect(registersBoletos(await service.ctx.connectors.connectorFor(merchant.merchant_id, 'BOLETO'))).toBe(true);
      const b = await boleto('25.00');
      const parsed = parseBoleto(b.view.boleto.digitable_line, today);
      expect(parsed).toMatchObject({ bankCode: '001', amountCents: 2500n, dueDate: b.view.boleto.due_date, freeField: `000000${b.nossoNumero}17` });
      expect(b.nossoNumero).toMatch(/^1234567\d{10}$/);
      expect(await registrationOf(b.token)).toMatchObject({ status: 'PENDING', amount_minor: 2500n });
    });

    it('writes a remessa whose every line is 240 characters, with header, batch, segments P, Q and R, trailers, counts and sums right', async () => {
      const first = await boleto('40.10');
      const second = await boleto('1234.56');
      const { remessa } = await sweep();
      expect(remessa).toMatch(/^colibri-001-remessa-\d{6}\.rem$/);
      const content = readFileSync(join(root, 'outbox', remessa!), 'latin1');
      const read = readRemessaIndependently(content);
      const numbers = read.titles.map((t) => t.nossoNumero);
      expect(numbers).toEqual(expect.arrayContaining([first.nossoNumero, second.nossoNumero]));
      expect(read.titles.find((t) => t.nossoNumero === second.nossoNumero)?.amountMinor).toBe(123456n);
      // The merchant is named as the final beneficiary, folded to the layout's characters.
      expect(content).toContain('LOJA ACAI & CIA');
      // The bank's own reader takes it.
      const collected = bank.collect();
      expect(bank.problems).toEqual([]);
      expect(collected.flatMap((r) => r.registered)).toEqual(expect.arrayContaining([first.nossoNumero, second.nossoNumero]));
      expect(await registrationOf(first.token)).toMatchObject({ status: 'SENT' });
      const file = await service.ctx.db.selectFrom('boleto_bank_files').selectAll().where('name', '=', remessa!).executeTakeFirstOrThrow();
      expect(file).toMatchObject({ direction: 'REMESSA', status: 'WRITTEN', sequence: read.sequence, content });
      // Nothing waits: no new remessa.
      expect((await sweep()).remessa).toBeNull();
    });

    it('applies a retorno of every occurrence: registered, rejected (translated), paid with its tariff, written off', async () => {
      const registered = await boleto('10.00');
      const rejected = await boleto('11.00');
      const paid = await boleto('12.00');
      const writtenOff = await boleto('13.00');
      const already = await boleto('14.00');
      await sweep();
      bank.collect();
      expect(bank.problems).toEqual([]);
      bank.drop(bank.retornoContent([
        ...bank.registrations([registered.nossoNumero, paid.nossoNumero, writtenOff.nossoNumero]),
        { movement: '03', nossoNumero: rejected.nossoNumero, reasons: ['46', '48'] },
        { movement: '03', nossoNumero: already.nossoNumero, reasons: ['63'] },
        bank.payment(paid.nossoNumero, { on: today, tariffMinor: 250n }),
        { movement: '09', nossoNumero: writtenOff.nossoNumero, reasons: ['10'], occurredOn: today },
      ]));
      expect(await sweep()).toMatchObject({ imported: 1, refused: 0 });
      expect(await paymentOf(registered.token)).toMatchObject({ status: 'CREATED' });
      expect(await registrationOf(registered.token)).toMatchObject({ status: 'REGISTERED' });
      expect(await registrationOf(already.token)).toMatchObject({ status: 'REGISTERED' });
      expect(await paymentOf(rejected.token)).toMatchObject({ status: 'ERROR', error_code: 'INVALID_REQUEST', error_description: expect.stringContaining("46 The payer's CPF or CNPJ is missing or invalid; 48") });
      expect(await registrationOf(rejected.token)).toMatchObject({ status: 'REJECTED', result_code: 'INVALID_REQUEST' });
      expect(await paymentOf(paid.token)).toMatchObject({ status: 'PAID', captured_minor: 1200n });
      expect(await registrationOf(paid.token)).toMatchObject({ status: 'PAID', paid_minor: 1200n, tariff_minor: 250n, paid_on: expect.anything() });
      expect(await historyOf(paid.token)).toEqual(['CREATED', 'PROCESSING', 'PAID']);
      const session = await service.get(`/checkout/${paid.checkoutId}`, { token: merchant.token });
      expect(session.body.status).toBe('PAID');
      expect(await paymentOf(writtenOff.token)).toMatchObject({ status: 'CANCELED' });
      expect(await registrationOf(writtenOff.token)).toMatchObject({ status: 'WRITTEN_OFF' });
      // The imported file is kept and moved out of the inbox.
      expect(readdirSync(join(root, 'inbox')).filter((n) => n.endsWith('.ret'))).toEqual([]);
      expect(readdirSync(join(root, 'inbox', 'processed')).length).toBeGreaterThan(0);
    });

    it('takes returns out of order and repeated: a payment before its registration, the same occurrence in a later file', async () => {
      const b = await boleto('20.00');
      await sweep();
      bank.collect();
      const payment = bank.payment(b.nossoNumero, { on: today });
      bank.drop(bank.retornoContent([payment]));
      await sweep();
      expect(await paymentOf(b.token)).toMatchObject({ status: 'PAID' });
      bank.drop(bank.retornoContent([...bank.registrations([b.nossoNumero]), payment]));
      expect(await sweep()).toMatchObject({ imported: 1 });
      expect(await registrationOf(b.token)).toMatchObject({ status: 'PAID' });
      expect(await historyOf(b.token)).toEqual(['CREATED', 'PROCESSING', 'PAID']);
      expect(await findingsOf(b.token)).toEqual([]);
      const returns = await service.ctx.db.selectFrom('boleto_returns').select('movement').where('payment_token', '=', b.token).execute();
      expect(returns.map((r) => r.movement).sort()).toEqual(['02', '06']);
    });

    it('moves money once for a boleto paid twice, and keeps the second payment as a finding', async () => {
      const b = await boleto('30.00');
      await sweep();
      bank.collect();
      const yesterday = new Date(Date.parse(`${today}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
      bank.drop(bank.retornoContent([bank.payment(b.nossoNumero, { on: yesterday, creditedOn: today })]));
      bank.drop(bank.retornoContent([bank.payment(b.nossoNumero, { on: today })]));
      await sweep();
      expect(await paymentOf(b.token)).toMatchObject({ status: 'PAID', captured_minor: 3000n });
      expect(await historyOf(b.token)).toEqual(['CREATED', 'PROCESSING', 'PAID']);
      const findings = await findingsOf(b.token);
      expect(findings).toHaveLength(1);
      expect(findings[0]).toMatchObject({ kind: 'PAID_TWICE', amount_minor: 3000n, detail: expect.stringContaining('moved no money') });
      // The operator reads it, and marks it resolved once the payer has the money back.
      const admin = { headers: { authorization: `Bearer ${service.ctx.adminToken}` } };
      const open = await service.get('/admin/boleto-findings', admin);
      const listed = open.body.findings.find((f: { payment_token: string }) => f.payment_token === b.token);
      expect(listed).toMatchObject({ kind: 'PAID_TWICE', amount: '30.00', nosso_numero: b.nossoNumero, resolved_at: null });
      expect((await service.post(`/admin/boleto-findings/${listed.finding_id}/resolve`, undefined, admin)).body).toMatchObject({ resolved_at: expect.any(String) });
      const again = await service.post(`/admin/boleto-findings/${listed.finding_id}/resolve`, undefined, admin);
      expect(again.status).toBe(409);
      expect(again.body.errors[0].code).toBe('12.02.0002');
      // One capture journal: the money moved once.
      const journals = await service.ctx.db.selectFrom('ledger_entries').select('journal_id').distinct().where('resource_id', '=', b.token).execute();
      expect(journals).toHaveLength(1);
    });

    it('refuses a malformed retorno whole, naming the line and the field, and stores nothing but the refusal', async () => {
      const b = await boleto('50.00');
      await sweep();
      bank.collect();
      const good = bank.retornoContent([bank.payment(b.nossoNumero, { on: today })]);
      const lines = good.slice(0, -2).split('\r\n');
      // The paid amount of segment U (positions 78-92) is not a number.
      lines[3] = `${lines[3]!.slice(0, 77)}00000000000ABCD${lines[3]!.slice(92)}`;
      const name = bank.drop(`${lines.join('\r\n')}\r\n`);
      expect(await sweep()).toMatchObject({ imported: 0, refused: 1 });
      const refused = await service.ctx.db.selectFrom('boleto_bank_files').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
      expect(refused).toMatchObject({ status: 'REFUSED', refusal: { line: 4, field: 'segment U.paid (positions 78-92)', reason: expect.stringContaining('not numeric') } });
      expect(await paymentOf(b.token)).toMatchObject({ status: 'CREATED' });
      const admin = { headers: { authorization: `Bearer ${service.ctx.adminToken}` } };
      const listedFiles = await service.get('/admin/boleto-files?direction=RETORNO&status=REFUSED', admin);
      expect(listedFiles.body.files.find((f: { name: string }) => f.name === name)).toMatchObject({ file_id: refused.id, refusal: { line: 4, field: 'segment U.paid (positions 78-92)' } });
      expect((await service.get(`/admin/boleto-files/${refused.id}`, admin)).body.content).toBe(refused.content);
      const missing = await service.get('/admin/boleto-files/00000000-0000-4000-8000-000000000000', admin);
      expect(missing.status).toBe(404);
      expect(missing.body.errors[0].code).toBe('12.01.0001');
      expect(await service.ctx.db.selectFrom('boleto_returns').select('file_id').where('file_id', '=', refused.id).execute()).toEqual([]);
      // A short line is refused too, by its line.
      const short = good.slice(0, -2).split('\r\n');
      short[2] = short[2]!.slice(0, 239);
      const shortName = bank.drop(`${short.join('\r\n')}\r\n`);
      await sweep();
      expect((await service.ctx.db.selectFrom('boleto_bank_files').select('refusal').where('name', '=', shortName).executeTakeFirstOrThrow()).refusal).toMatchObject({ line: 3, field: 'line' });
      // Another agreement's return is not this connector's to apply.
      const foreign = bank.drop(bank.retornoContent([bank.payment(b.nossoNumero, { on: today })], { agreement: '7654321' }));
      await sweep();
      expect((await service.ctx.db.selectFrom('boleto_bank_files').select('refusal').where('name', '=', foreign).executeTakeFirstOrThrow()).refusal).toMatchObject({ line: 1, field: 'file header.agreement (positions 33-52)' });
      // The well-formed file still applies afterwards.
      bank.drop(good);
      await sweep();
      expect(await paymentOf(b.token)).toMatchObject({ status: 'PAID' });
    });

    it('imports the same file once, and refuses another content under a sequence number already imported', async () => {
      const b = await boleto('60.00');
      await sweep();
      bank.collect();
      const content = bank.retornoContent(bank.registrations([b.nossoNumero]));
      bank.drop(content, 'twice-a.ret');
      expect(await sweep()).toMatchObject({ imported: 1 });
      bank.drop(content, 'twice-b.ret');
      expect(await sweep()).toMatchObject({ imported: 0, refused: 0 });
      const files = await service.ctx.db.selectFrom('boleto_bank_files').select('name').where('direction', '=', 'RETORNO').where('name', 'in', ['twice-a.ret', 'twice-b.ret']).execute();
      expect(files.map((f) => f.name)).toEqual(['twice-a.ret']);
      const sequence = Number(content.slice(157, 163));
      const other = bank.retornoContent([bank.payment(b.nossoNumero, { on: today })], { sequence });
      const name = bank.drop(other);
      expect(await sweep()).toMatchObject({ imported: 0, refused: 1 });
      expect((await service.ctx.db.selectFrom('boleto_bank_files').select('refusal').where('name', '=', name).executeTakeFirstOrThrow()).refusal).toMatchObject({ line: 1, reason: expect.stringContaining(`sequence ${sequence} was already imported from twice-a.ret`) });
      expect(await paymentOf(b.token)).toMatchObject({ status: 'CREATED' });
    });

    it('asks the bank to write off a registered boleto whose payment closed otherwise, in the next remessa', async () => {
      const b = await boleto('70.00');
      await sweep();
      bank.collect();
      bank.drop(bank.retornoContent(bank.registrations([b.nossoNumero])));
      await sweep();
      // The payment closes without the bank (here: the merchant's session is canceled by the operator's clock; any close will do).
      await service.ctx.db.transaction().execute(async (trx) => {
        const { changeStatus, lockPayment } = await import('../src/payments/payment-record');
        const payment = await lockPayment(trx, merchant.merchant_id, b.token);
        await changeStatus(trx, payment!, 'CANCELED', new Date());
      });
      const { remessa } = await sweep();
      expect(remessa).not.toBeNull();
      const read = readRemessaIndependently(readFileSync(join(root, 'outbox', remessa!), 'latin1'));
      expect(read.titles).toEqual([expect.objectContaining({ nossoNumero: b.nossoNumero, movement: '02' })]);
      bank.collect();
      expect(bank.problems).toEqual([]);
      expect(bank.titles.get(b.nossoNumero)?.writeOffRequested).toBe(true);
      expect(await registrationOf(b.token)).toMatchObject({ write_off: 'SENT' });
      // A payment reported after the write-off moves no money: a finding.
      bank.drop(bank.retornoContent([bank.payment(b.nossoNumero, { on: today, afterWriteOff: true })]));
      await sweep();
      expect(await paymentOf(b.token)).toMatchObject({ status: 'CANCELED' });
      expect((await findingsOf(b.token)).map((f) => f.kind)).toEqual(['PAID_AFTER_CLOSE']);
    });

    it("keeps a boleto refund's bank-account fields, and fails it NOT_SUPPORTED: a collection agreement pays nothing out", async () => {
      const b = await boleto('90.00');
      await sweep();
      bank.collect();
      bank.drop(bank.retornoContent([bank.payment(b.nossoNumero, { on: today })]));
      await sweep();
      expect(await paymentOf(b.token)).toMatchObject({ status: 'PAID' });
      const requested = await service.post('/refund', { payment_token: b.token, amount: 90, type: 'CHECKING', bank_number: '341', agency_number: '1234', agency_check_digit: '5', account_number: '123456', account_check_digit: '7' }, { token: merchant.token });
      expect(requested.status, JSON.stringify(requested.body)).toBe(200);
      const deadline = Date.now() + 10_000;
      let refund;
      for (;;) {
        refund = (await service.get(`/refund/${requested.body.refund_id}`, { token: merchant.token })).body;
        if (refund.refund_status !== 'PROCESSING' || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(refund).toMatchObject({ refund_status: 'FAILED' });
      expect(JSON.stringify(refund)).toContain('NOT_SUPPORTED');
      expect(await paymentOf(b.token)).toMatchObject({ status: 'PAID' });
    });

    it('sends each registration once and imports a file once when two processes sweep at the same time', async () => {
      const boletos = await Promise.all([boleto('15.00'), boleto('16.00'), boleto('17.00')]);
      await Promise.all([sweep(), sweep(), sweep()]);
      const sent = bank.collect().flatMap((r) => r.registered);
      for (const b of boletos) expect(sent.filter((n) => n === b.nossoNumero)).toHaveLength(1);
      bank.drop(bank.retornoContent([bank.payment(boletos[0]!.nossoNumero, { on: today })]));
      const results = await Promise.all([sweep(), sweep()]);
      expect(results.reduce((n, r) => n + r.imported, 0)).toBe(1);
      expect(await historyOf(boletos[0]!.token)).toEqual(['CREATED', 'PROCESSING', 'PAID']);
    });

    it('writes a remessa again after a crash between storing it and writing it into the outbox', async () => {
      await boleto('80.00');
      await sweep();
      const latest = await service.ctx.db.selectFrom('boleto_bank_files').select(['id', 'name']).where('direction', '=', 'REMESSA').orderBy('sequence', 'desc').executeTakeFirstOrThrow();
      rmSync(join(root, 'outbox', latest.name));
      await service.ctx.db.updateTable('boleto_bank_files').set({ status: 'WRITING' }).where('id', '=', latest.id).execute();
      await sweep();
      expect(existsSync(join(root, 'outbox', latest.name))).toBe(true);
      expect((await service.ctx.db.selectFrom('boleto_bank_files').select('status').where('id', '=', latest.id).executeTakeFirstOrThrow()).status).toBe('WRITTEN');
    });
  });
}

for (const engine of ENGINES) {
  describe(`the hybrid boleto: a PIX charge beside the bank's boleto [${engine}]`, () => {
    let service: TestService;
    let root: string;
    let bank: CnabBankFake;
    let psp: PixPspFake;
    let pix: Awaited<ReturnType<typeof startPixPsp>>;

    beforeAll(async () => {
      pix = await startPixPsp();
      psp = pix.psp;
      root = newFolders();
      bank = new CnabBankFake(join(root, 'outbox'), join(root, 'inbox'));
      service = await startTestService(engine, {
        env: { COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_LIVE_METHODS: 'BOLETO,PIX', COLIBRI_BOLETO_SWEEP_MS: '3600000', COLIBRI_PIX_RECONCILE_MS: '3600000', ...boletoEnv(root), ...pix.env },
      });
    });
    afterAll(async () => {
      await service?.close();
      await pix?.stop();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it('shows the PIX code with the boleto; paid by PIX, the boleto is written off at the bank', async () => {
      const m = await service.merchant('Loja Verde');
      const generated = await service.post('/checkout/generate', { contractId: m.contract_id, amount: '25.00', asset: 'BRL', method: 'BOLETO', referenceId: `order-${Date.now()}`, expiresIn: 900, ...PAYER_AT_GENERATION }, { token: m.token });
      expect(generated.status, JSON.stringify(generated.body)).toBe(200);
      const token = generated.body.payment.payment_token as string;
      const cob = psp.cobs.get(pixTxid(token))!;
      expect(cob.body).toMatchObject({ valor: { original: '25.00' } });
      expect(generated.body.payment).toMatchObject({ boleto: { digitable_line: expect.any(String) }, pix: { br_code: expect.stringContaining(cob.location.replace(/^https:\/\//, '')) } });
      const page = await service.get(`/pay/${generated.body.checkout_id}`);
      expect(page.text).toContain('data-view="boleto-pix"');
      expect(page.text).toContain(generated.body.payment.boleto.digitable_line.slice(0, 5));

      await sweepBoletoFiles(service.ctx, { force: true });
      const registration = await service.ctx.db.selectFrom('boleto_registrations').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
      expect(bank.collect().flatMap((r) => r.registered)).toContain(registration.nosso_numero);

      psp.pay(pixTxid(token));
      await reconcilePixCharges(service.ctx, { olderThanMs: 0 });
      expect(await service.ctx.db.selectFrom('payments').select('status').where('payment_token', '=', token).executeTakeFirstOrThrow()).toMatchObject({ status: 'PAID' });
      await sweepBoletoFiles(service.ctx, { force: true });
      const [writeOff] = bank.collect();
      expect(writeOff?.writeOffs).toEqual([registration.nosso_numero]);
      expect(bank.problems).toEqual([]);
      // The bank confirms the write-off; the payment stays PAID.
      bank.drop(bank.retornoContent([{ movement: '09', nossoNumero: registration.nosso_numero, reasons: ['10'] }]));
      await sweepBoletoFiles(service.ctx, { force: true });
      expect(await service.ctx.db.selectFrom('payments').select('status').where('payment_token', '=', token).executeTakeFirstOrThrow()).toMatchObject({ status: 'PAID' });
      expect(psp.received.every((r) => r.problems.length === 0)).toBe(true);
    });
  });
}
