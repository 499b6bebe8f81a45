import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pixTxid, reconcilePixCharges } from '../src/checkout/pix-charges';
import { reconcilePixReturns, RETURNS_WINDOW_DAYS } from '../src/checkout/pix-returns';
import { pixWebhookServerOf } from '../src/checkout/pix-webhook';
import { MED_NATUREZAS } from '../src/connectors/pix/pix-codes';
import { balances } from '../src/ledger/ledger';
import { startReceiver, type CallbackReceiver } from './callback-receiver';
import { waitForStatus } from './fixtures';
import { PixPspFake, type FakePix } from './fakes/pix-psp-fake';
import { createTestCa, pemFolder, type Issued, type TestCa } from './fakes/test-pki';
import { ENGINES, startTestService, type TestMerchant, type TestService } from './harness';

/**
 * PIX MED (the Banco Central's Mecanismo Especial de Devolução) in live mode, against the API Pix fake:
 * a devolução the PSP made itself (`natureza` MED_*), found on a received PIX by the `/pix` webhook or by
 * reading the PIX back (`GET /pix/{e2eid}`), opens a dispute already LOST, records the refund it is,
 * and moves the money once.
 */

const MASTER_KEY = Buffer.alloc(32, 13).toString('base64');

let pspCa: TestCa;
let pspWebhookClient: Issued;
let folder: ReturnType<typeof pemFolder>;
let colibriClientFiles: { cert: string; key: string; ca: string };
let listenerFiles: Record<string, string>;
let listenerCa: string;

beforeAll(() => {
  pspCa = createTestCa('Test PSP CA');
  const colibriCa = createTestCa('Test Colibri CA');
  const listener = colibriCa.issue('127.0.0.1', 'server');
  pspWebhookClient = pspCa.issue('psp-webhook', 'client');
  const colibriClient = pspCa.issue('colibri', 'client');
  folder = pemFolder();
  colibriClientFiles = { cert: folder.write('client.crt', colibriClient.cert), key: folder.write('client.key', colibriClient.key), ca: folder.write('psp-ca.crt', pspCa.cert) };
  listenerFiles = {
    COLIBRI_PIX_WEBHOOK_PORT: '0',
    COLIBRI_PIX_WEBHOOK_HOST: '127.0.0.1',
    COLIBRI_PIX_WEBHOOK_CERT: folder.write('listener.crt', listener.cert),
    COLIBRI_PIX_WEBHOOK_KEY: folder.write('listener.key', listener.key),
    COLIBRI_PIX_WEBHOOK_CLIENT_CA: colibriClientFiles.ca,
  };
  listenerCa = colibriCa.cert;
});
afterAll(() => folder?.remove());

interface Callback {
  type: string;
  data: Record<string, unknown>;
}

for (const engine of ENGINES) {
  describe(`PIX MED in live mode [${engine}]`, () => {
    let fake: PixPspFake;
    let service: TestService;
    let receiver: CallbackReceiver;
    let webhook: string;

    beforeAll(async () => {
      fake = await new PixPspFake({ server: pspCa.issue('127.0.0.1', 'server'), clientCa: pspCa.cert }).start();
      receiver = await startReceiver();
      // Reconciliation passes are run by the tests themselves; the periodic ones read nothing this young.
      service = await startTestService(engine, { env: { COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_LIVE_METHODS: 'PIX', COLIBRI_PIX_RECONCILE_MS: '3600000', ...fake.env(colibriClientFiles), ...listenerFiles } });
      webhook = `https://127.0.0.1:${pixWebhookServerOf(service.app)!.port}/connectors/pix/webhook/pix`;
    });
    afterAll(async () => {
      await service?.close();
      await fake?.stop();
      await receiver?.close();
    });

    const notify = (items: readonly Record<string, unknown>[]) => fake.notify(webhook, items, { client: pspWebhookClient, ca: listenerCa });

    /** A PIX payment of `amount`, paid and notified: its token and the fake's PIX. */
    const paidPix = async (m: TestMerchant, amount: string): Promise<{ token: string; pix: FakePix }> => {
      const generated = await service.post('/checkout/generate', {
        contractId: m.contract_id, amount, asset: 'BRL', method: 'PIX', referenceId: `order-${Date.now()}`, expiresIn: 900,
        notificationUrl: `${receiver.url}/${m.merchant_id}`,
      }, { token: m.token });
      expect(generated.status, JSON.stringify(generated.body)).toBe(200);
      const token = generated.body.payment.payment_token as string;
      // A PSP slower than the deadline (a cold start on a busy machine) leaves the charge to reconciliation.
      if (!fake.cobs.has(pixTxid(token))) await reconcilePixCharges(service.ctx, { olderThanMs: 0 });
      const pix = fake.pay(pixTxid(token));
      expect((await notify([fake.pixView(pix)])).status).toBe(200);
      expect((await paymentRow(token)).status).toBe('PAID');
      return { token, pix };
    };
    const paymentRow = (token: string) => service.ctx.db.selectFrom('payments').select(['status', 'refunded_minor']).where('payment_token', '=', token).executeTakeFirstOrThrow();
    const disputeRows = (token: string) => service.ctx.db.selectFrom('disputes').selectAll().where('payment_token', '=', token).orderBy('created_at').execute();
    const refundRows = (token: string) => service.ctx.db.selectFrom('refunds').select(['refund_id', 'amount_minor', 'status', 'processor_id']).where('payment_token', '=', token).orderBy('refund_id').execute();
    const noticeCount = async (m: TestMerchant) => (await service.ctx.db.selectFrom('dispute_notices').select('id').where('merchant_id', '=', m.merchant_id).execute()).length;
    const callbacks = (m: TestMerchant, type: string) => receiver.at(`/${m.merchant_id}`).map((c) => JSON.parse(c.body) as Callback).filter((c) => c.type === type);
    const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const value = await read();
        if (done(value)) return value;
        if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    /** The payment's disputes once `count` of them are LOST (the notices are applied by a job). */
    const lostDisputes = (token: string, count = 1) => until(() => disputeRows(token), (rows) => rows.length === count && rows.every((r) => r.status === 'LOST'), `disputes of ${token}`);
    /** The merchant's ledger; the whole of it balances. */
    const books = async (m: TestMerchant) => {
      const b = await balances(service.ctx.db, m.merchant_id);
      expect(Object.values(b).reduce((t, v) => t + (v ?? 0n), 0n), 'the journal balances').toBe(0n);
      return { merchantPayable: b.merchant_payable ?? 0n, processorReceivable: b.processor_receivable ?? 0n, disputesHeld: b.disputes_held ?? 0n, feeRevenue: b.fee_revenue ?? 0n };
    };
    const journalKinds = async (m: TestMerchant) => (await service.ctx.db.selectFrom('ledger_entries').select('kind').distinct().where('merchant_id', '=', m.merchant_id).orderBy('kind').execute()).map((r) => r.kind);

    it('a MED_FRAUDE devolução DEVOLVIDO on a paid PIX opens a dispute LOST with the money moved, records the refund, and a repeated delivery changes nothing', async () => {
      const m = await service.merchant();
      const { token, pix } = await paidPix(m, '40.00');
      const before = await books(m);
      const med = fake.med(pix.endToEndId, '40.00', { natureza: 'MED_FRAUDE' });
      expect(await notify([fake.pixView(pix)])).toMatchObject({ status: 200, body: { applied: 1, duplicates: 0 } });

      const [row] = await lostDisputes(token);
      expect(row).toMatchObject({ processor: 'pix', processor_reference: `${pix.endToEndId}/${med.id}`, amount_minor: 4000n, fee_minor: 0n, held_minor: 0n, reason_code: 'MED_FRAUDE', reason_category: 'FRAUD', stage: 'CHARGEBACK', evidence_due_by: null });
      const read = await service.get(`/disputes/${row!.dispute_id}`, { token: m.token });
      expect(read.body).toMatchObject({ payment_token: token, status: 'LOST', processor: 'pix', reason_code: 'MED_FRAUDE', reason_category: 'FRAUD', stage: 'CHARGEBACK', amount: 40, asset: 'BRL', fee: 0, evidence_due_by: null });
      expect(read.body.lost_at).not.toBeNull();
      // Decided already: nothing can be sent for it.
      expect((await service.post(`/disputes/${row!.dispute_id}/evidence`, { uncategorized_text: 'Delivered.' }, { token: m.token })).status).toBe(409);

      // The money: held then lost, so what Colibri owes the merchant and what the PSP owes Colibri both fell by 40.00, once.
      const after = await books(m);
      expect(after.disputesHeld).toBe(0n);
      expect(after.merchantPayable - before.merchantPayable).toBe(4000n);
      expect(after.processorReceivable - before.processorReceivable).toBe(-4000n);
      expect(after.feeRevenue).toBe(before.feeRevenue);
      expect(await journalKinds(m)).not.toContain('refund');

      // The refund it is: COMPLETED, named by the return's id, and the dispute points at it.
      const refunds = await refundRows(token);
      expect(refunds).toEqual([{ refund_id: row!.refund_id, amount_minor: 4000n, status: 'COMPLETED', processor_id: med.rtrId }]);
      const history = await service.ctx.db.selectFrom('refund_status_history').select('status').where('refund_id', '=', row!.refund_id!).execute();
      expect(history.map((h) => h.status)).toEqual(['COMPLETED']);
      expect((await service.get(`/refund/${row!.refund_id}`, { token: m.token })).body).toMatchObject({ refund_status: 'COMPLETED', amount: 40 });
      const details = await waitForStatus(service, m, token, (s) => s === 'REFUNDED');
      expect(details.payment_info).toMatchObject({ refunded_amount: 40, flags: [] });
      expect(details.other_info.dispute_id).toBe(row!.dispute_id);
      expect(await paymentRow(token)).toEqual({ status: 'REFUNDED', refunded_minor: 4000n });
      // Colibri asked the PSP for no devolução.
      expect(fake.received.filter((r) => r.method === 'PUT' && r.path.includes(pix.endToEndId))).toEqual([]);

      // The merchant hears of it: the dispute LOST, the refund COMPLETED, the payment REFUNDED.
      await receiver.waitFor(() => callbacks(m, 'dispute.status_changed').some((c) => c.data.status === 'LOST'), 10_000, 'the LOST callback');
      await receiver.waitFor(() => callbacks(m, 'refund.status_changed').some((c) => c.data.refund_status === 'COMPLETED'), 10_000, 'the refund callback');
      const lost = callbacks(m, 'dispute.status_changed').find((c) => c.data.status === 'LOST')!;
      expect(lost.data).toMatchObject({ dispute_id: row!.dispute_id, payment_token: token, stage: 'CHARGEBACK', reason_category: 'FRAUD', amount: 40, asset: 'BRL', evidence_due_by: null });

      // Delivered again: kept once, applied once.
      expect(await notify([fake.pixView(pix)])).toMatchObject({ status: 200, body: { applied: 0, duplicates: 1 } });
      expect(await noticeCount(m)).toBe(1);
      await new Promise((r) => setTimeout(r, 300));
      expect(await disputeRows(token)).toHaveLength(1);
      expect(await refundRows(token)).toHaveLength(1);
      expect(await books(m)).toEqual(after);
      expect(await paymentRow(token)).toEqual({ status: 'REFUNDED', refunded_minor: 4000n });
    });

    it('a partial MED, then a merchant refund of the rest; a refund beyond what is left is refused', async () => {
      const m = await service.merchant();
      const { token, pix } = await paidPix(m, '50.00');
      const before = await books(m);
      fake.med(pix.endToEndId, '20.00', { natureza: 'MED_OPERACIONAL' });
      expect((await notify([fake.pixView(pix)])).status).toBe(200);
      const [row] = await lostDisputes(token);
      expect(row).toMatchObject({ amount_minor: 2000n, reason_code: 'MED_OPERACIONAL', reason_category: 'GENERAL' });
      expect(await paymentRow(token)).toEqual({ status: 'PARTIALLY_REFUNDED', refunded_minor: 2000n });
      expect((await waitForStatus(service, m, token, (s) => s === 'PARTIALLY_REFUNDED')).payment_info.refunded_amount).toBe(20);

      const beyond = await service.post('/refund', { payment_token: token, amount: 30.01 }, { token: m.token });
      expect(beyond.status).toBe(400);
      expect(beyond.body.errors[0]).toMatchObject({ code: '01.05.0034' });
      expect(beyond.body.errors[0].description).toContain('30.00');

      const rest = await service.post('/refund', { payment_token: token, amount: 30 }, { token: m.token });
      expect(rest.status, JSON.stringify(rest.body)).toBe(200);
      const done = await until(() => service.get(`/refund/${rest.body.refund_id}`, { token: m.token }), (r) => r.body.refund_status !== 'PROCESSING', 'the refund');
      expect(done.body.refund_status).toBe('COMPLETED');
      // The PSP took it beside the MED: the two sum to the PIX's valor.
      expect(fake.received.find((r) => r.method === 'PUT' && r.path.endsWith(`/devolucao/colibri${rest.body.refund_id}`))?.body).toEqual({ valor: '30.00', natureza: 'ORIGINAL' });
      expect(await paymentRow(token)).toEqual({ status: 'REFUNDED', refunded_minor: 5000n });
      const after = await books(m);
      expect(after.disputesHeld).toBe(0n);
      expect(after.merchantPayable - before.merchantPayable).toBe(5000n);
      expect(after.processorReceivable - before.processorReceivable).toBe(-5000n);

      const more = await service.post('/refund', { payment_token: token, amount: 0.01 }, { token: m.token });
      expect(more.status).toBe(400);
      expect(more.body.errors[0].code).toBe('01.05.0030');
    });

    it('finds a MED whose webhook never came by reading the PIX back (GET /pix/{e2eid}), once it is DEVOLVIDO', async () => {
      const m = await service.merchant();
      const { token, pix } = await paidPix(m, '30.00');
      const reads = () => fake.received.filter((r) => r.method === 'GET' && r.path === `/api/v2/pix/${pix.endToEndId}`).length;

      // Still being processed at the PSP: nothing to record yet.
      const med = fake.med(pix.endToEndId, '12.50', { natureza: 'MED_FRAUDE', status: 'EM_PROCESSAMENTO' });
      expect(await reconcilePixReturns(service.ctx, { olderThanMs: 0 })).toBeGreaterThanOrEqual(1);
      expect(reads()).toBe(1);
      expect(await noticeCount(m)).toBe(0);
      // Read once a day: a pass right after reads it not again.
      await reconcilePixReturns(service.ctx);
      expect(reads()).toBe(1);

      fake.settle(pix.endToEndId, med.id, 'DEVOLVIDO');
      await reconcilePixReturns(service.ctx, { olderThanMs: 0 });
      expect(reads()).toBe(2);
      const [row] = await lostDisputes(token);
      expect(row).toMatchObject({ processor_reference: `${pix.endToEndId}/${med.id}`, amount_minor: 1250n, reason_category: 'FRAUD' });
      expect(await refundRows(token)).toEqual([{ refund_id: row!.refund_id, amount_minor: 1250n, status: 'COMPLETED', processor_id: med.rtrId }]);
      expect(await paymentRow(token)).toEqual({ status: 'PARTIALLY_REFUNDED', refunded_minor: 1250n });

      // Read again, and then notified late: the same MED is kept once.
      await reconcilePixReturns(service.ctx, { olderThanMs: 0 });
      expect((await notify([fake.pixView(pix)])).status).toBe(200);
      expect(await noticeCount(m)).toBe(1);
      await new Promise((r) => setTimeout(r, 300));
      expect(await disputeRows(token)).toHaveLength(1);
      expect(await paymentRow(token)).toEqual({ status: 'PARTIALLY_REFUNDED', refunded_minor: 1250n });

      // Past the window no MED can come: the PIX is read a last time, then no more.
      await service.ctx.db.updateTable('payments').set({ paid_at: new Date(Date.now() - (RETURNS_WINDOW_DAYS + 1) * 86_400_000) }).where('payment_token', '=', token).execute();
      await reconcilePixReturns(service.ctx, { olderThanMs: 0 });
      const watched = reads();
      await reconcilePixReturns(service.ctx, { olderThanMs: 0 });
      expect(reads()).toBe(watched);
      const watch = await service.ctx.db.selectFrom('connector_operations').select('result').where('reference', '=', `${token}:returns`).executeTakeFirstOrThrow();
      expect((watch.result as { status: string }).status).toBe('APPROVED');
    });

    it('a MED is recorded beside a refund still in flight that never reached the PSP, which then fails there', async () => {
      const m = await service.merchant();
      const { token, pix } = await paidPix(m, '40.00');
      // The refund's PUT fails before the PSP acts, and so do the next two resends: it stays PROCESSING.
      fake.faults.push('HTTP_500_BEFORE', 'HTTP_500_BEFORE', 'HTTP_500_BEFORE');
      const refund = await service.post('/refund', { payment_token: token, amount: 40 }, { token: m.token });
      expect(refund.body.refund_status).toBe('PROCESSING');
      // Meanwhile the PSP returned the whole PIX on the MED: the refund in flight does not count against it.
      fake.med(pix.endToEndId, '40.00', { natureza: 'MED_FRAUDE' });
      expect((await notify([fake.pixView(pix)])).status).toBe(200);
      const [row] = await lostDisputes(token);
      expect(row).toMatchObject({ amount_minor: 4000n });
      const notice = await service.ctx.db.selectFrom('dispute_notices').select('outcome').where('merchant_id', '=', m.merchant_id).executeTakeFirstOrThrow();
      expect(notice.outcome).toBe(`${row!.dispute_id} LOST as refund ${row!.refund_id}`);
      // The refund reaches the PSP at last, which refuses it: the MED took the whole PIX.
      const failed = await until(() => service.get(`/refund/${refund.body.refund_id}`, { token: m.token }), (r) => r.body.refund_status !== 'PROCESSING', 'the refund');
      expect(failed.body).toMatchObject({ refund_status: 'FAILED', error_code: 'REFUND_REJECTED' });
      expect(fake.faults).toEqual([]);
      expect(await paymentRow(token)).toEqual({ status: 'REFUNDED', refunded_minor: 4000n });
      expect((await books(m)).disputesHeld).toBe(0n);
    });

    it("Colibri's own devolução still completes its refund, beside a MED on the same PIX whose id looks like Colibri's", async () => {
      const m = await service.merchant();
      const { token, pix } = await paidPix(m, '40.00');
      fake.readsBeforeSettling = 1_000;
      try {
        const own = await service.post('/refund', { payment_token: token, amount: 15 }, { token: m.token });
        expect(own.body.refund_status).toBe('PROCESSING');
        fake.settle(pix.endToEndId, `colibri${own.body.refund_id}`, 'DEVOLVIDO');
        // The PSP's MED has an id of Colibri's form (the PSP invents its ids): its natureza says what it is.
        const lookalike = `colibri${Number(own.body.refund_id) + 1_000_000}`;
        const med = fake.med(pix.endToEndId, '10.00', { natureza: 'MED_OPERACIONAL', id: lookalike });
        expect((await notify([fake.pixView(pix)])).status).toBe(200);

        const done = await until(() => service.get(`/refund/${own.body.refund_id}`, { token: m.token }), (r) => r.body.refund_status !== 'PROCESSING', 'the refund');
        expect(done.body.refund_status).toBe('COMPLETED');
        const [row] = await lostDisputes(token);
        expect(row).toMatchObject({ processor_reference: `${pix.endToEndId}/${med.id}`, amount_minor: 1000n });
        // No record of a refund of Colibri's was made from the MED.
        const records = await service.ctx.db.selectFrom('connector_operations').select('reference').where('merchant_id', '=', m.merchant_id).where('reference', 'like', `${token}:refund:%`).execute();
        expect(records.map((r) => r.reference)).toEqual([`${token}:refund:${own.body.refund_id}`]);
        await until(() => paymentRow(token), (p) => p.refunded_minor === 2500n, 'the refunded amount');
        expect(await paymentRow(token)).toEqual({ status: 'PARTIALLY_REFUNDED', refunded_minor: 2500n });
        const refunds = await refundRows(token);
        expect(refunds.map((r) => [r.amount_minor, r.status])).toEqual([[1500n, 'COMPLETED'], [1000n, 'COMPLETED']]);
        // The refund of Colibri's moved its money by the refund journal; the MED by the dispute's.
        expect(await journalKinds(m)).toEqual(expect.arrayContaining(['refund', 'dispute.held', 'dispute.lost']));
        expect((await books(m)).disputesHeld).toBe(0n);
      } finally {
        fake.readsBeforeSettling = 1;
      }
    });
  });
}

describe('MED in the docs', () => {
  it('docs/connectors.md prints the MED natureza table as it is in the code', () => {
    const doc = readFileSync(new URL('../../../docs/connectors.md', import.meta.url), 'utf8');
    for (const [natureza, { category }] of Object.entries(MED_NATUREZAS)) expect(doc).toMatch(new RegExp(`\\| \`${natureza}\` \\| [^\\n]*\`${category}\` \\|`));
  });
});
