import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { ADYEN_DEFENCE_REASONS, ADYEN_DISPUTE_EVENTS, ADYEN_DOCUMENT_TYPES, pickDefence, reasonOf, translateDisputeNotification } from '../src/connectors/adyen/adyen-disputes';
import { adyenConnector } from '../src/connectors/adyen/adyen-connector';
import { balances } from '../src/ledger/ledger';
import { ProcessorUnavailableError } from '../src/processor/processor';
import { disputeReason } from '../src/rails/cards';
import { textPdf } from '../src/lib/pdf';
import { customerWithCard, paymentBody, settled, waitForStatus } from './fixtures';
import { AdyenFake, type FakePayment } from './fakes/adyen-fake';
import type { FakeDispute } from './fakes/adyen-fake-disputes';
import { pngFile } from './fakes/png-file';
import { ENGINES, startTestService, type TestMerchant, type TestService } from './harness';

const MASTER_KEY = Buffer.alloc(32, 13).toString('base64');
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

describe('Adyen dispute translation', () => {
  it('is printed in docs/disputes.md, table for table', () => {
    const doc = readFileSync(new URL('../../../docs/disputes.md', import.meta.url), 'utf8');
    for (const [event, { kind, stage }] of Object.entries(ADYEN_DISPUTE_EVENTS)) expect(doc).toContain(`| \`${event}\` | \`${kind}\` | \`${stage}\` |`);
    for (const [category, reasons] of Object.entries(ADYEN_DEFENCE_REASONS)) expect(doc).toContain(`| \`${category}\` | ${reasons.map((r) => `\`${r}\``).join(', ')} |`);
    for (const [kind, types] of Object.entries(ADYEN_DOCUMENT_TYPES)) expect(doc).toMatch(new RegExp(`\\| \`${kind}\`[^|]* \\| ${types.map((t) => `\`${t}\``).join(', ')} \\|`));
  });

  const item = (eventCode: string, extra: Record<string, unknown> = {}) => ({
    eventCode,
    success: 'true',
    pspReference: 'QFQTPCQ8HXSKGK82',
    eventDate: '2026-01-01T01:00:00+01:00',
    amount: { value: 1000, currency: 'BRL' },
    reason: 'Other Fraud-Card Absent Environment',
    additionalData: { chargebackReasonCode: '10.4', defensePeriodEndsAt: '2026-01-21T03:03:07+02:00' },
    ...extra,
  });
  const payment = { merchantId: randomUUID(), paymentToken: randomUUID() };

  it('turns every listed event into its notice, and nothing else', () => {
    for (const [eventCode, { kind, stage }] of Object.entries(ADYEN_DISPUTE_EVENTS)) {
      const [notice, ...more] = translateDisputeNotification(item(eventCode), payment);
      expect(more).toEqual([]);
      expect(notice).toEqual({
        processor: 'adyen',
        ...payment,
        noticeKey: `QFQTPCQ8HXSKGK82:${eventCode}:true`,
        processorReference: 'QFQTPCQ8HXSKGK82',
        kind,
        stage,
        amountMinor: 1000n,
        currency: 'BRL',
        reasonCode: '10.4',
        reasonCategory: 'FRAUD',
        reasonDescription: 'Other Fraud-Card Absent Environment',
        evidenceDueBy: new Date('2026-01-21T01:03:07Z'),
        occurredAt: new Date('2026-01-01T00:00:00Z'),
      });
      expect(translateDisputeNotification(item(eventCode, { success: 'false' }), payment)).toEqual([]);
    }
    for (const other of ['NOTIFICATION_OF_FRAUD', 'ISSUER_COMMENTS', 'AUTHORISATION', 'PREARBITRATION_OPEN']) expect(translateDisputeNotification(item(other), payment)).toEqual([]);
    // Nor an event named like what every object inherits.
    for (const inherited of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) expect(translateDisputeNotification(item(inherited), payment), inherited).toEqual([]);
  });

  it('adds a DEFENDED notice, an instant later, to a stage Adyen defended itself', () => {
    const notices = translateDisputeNotification(item('NOTIFICATION_OF_CHARGEBACK', { additionalData: { chargebackReasonCode: ' 4853', autoDefended: 'true', defendable: 'false' } }), payment);
    expect(notices.map((n) => [n.kind, n.stage, n.noticeKey, n.occurredAt.toISOString()])).toEqual([
      ['OPENED', 'CHARGEBACK', 'QFQTPCQ8HXSKGK82:NOTIFICATION_OF_CHARGEBACK:true', '2026-01-01T00:00:00.000Z'],
      ['DEFENDED', 'CHARGEBACK', 'QFQTPCQ8HXSKGK82:NOTIFICATION_OF_CHARGEBACK:true:autoDefended', '2026-01-01T00:00:00.001Z'],
    ]);
  });

  it('reads the reason code trimmed, from the RFI key or a coded reason, and files it in its category', () => {
    expect(reasonOf({ reason: 'Payment.TxId=3000 dispute', additionalData: { chargebackReasonCode: ' 4853' } })).toEqual({ code: '4853', description: 'Payment.TxId=3000 dispute' });
    expect(reasonOf({ reason: '502:Cardmember Dispute' })).toEqual({ code: '502', description: 'Cardmember Dispute' });
    expect(reasonOf({ reason: '', additionalData: { rfiReasonCode: '13.1' } })).toEqual({ code: '13.1', description: null });
    expect(reasonOf({ reason: 'Fraud: card absent' })).toEqual({ code: '', description: 'Fraud: card absent' });
    expect(disputeReason('4853').category).toBe('NOT_AS_DESCRIBED');
    expect(disputeReason('12.6').category).toBe('DUPLICATE');
  });

  it('picks the defence by category among those offered, placing each document on a type of its kind', () => {
    const offered = [
      { defenseReasonCode: 'GoodsWereAsDescribed', defenseDocumentTypes: [{ defenseDocumentTypeCode: 'GoodsWereAsDescribed', requirementLevel: 'Required' }, { defenseDocumentTypeCode: 'TIDorInvoice', requirementLevel: 'Required' }] },
      { defenseReasonCode: 'SupplyDefenseMaterial', defenseDocumentTypes: [{ defenseDocumentTypeCode: 'TIDorInvoice', requirementLevel: 'Optional' }, { defenseDocumentTypeCode: 'DefenseMaterial', requirementLevel: 'Required' }] },
    ];
    expect(pickDefence(offered, 'NOT_AS_DESCRIBED', ['product_description', 'receipt'])).toEqual({ defenseReasonCode: 'GoodsWereAsDescribed', documentTypes: ['GoodsWereAsDescribed', 'TIDorInvoice'] });
    // The preferred reason's requirements are not met: the generic defence, everything placed.
    expect(pickDefence(offered, 'NOT_AS_DESCRIBED', ['receipt', 'statement'])).toEqual({ defenseReasonCode: 'SupplyDefenseMaterial', documentTypes: ['TIDorInvoice', 'DefenseMaterial'] });
    expect(pickDefence([offered[0]!], 'GENERAL', ['statement'])).toBeNull();
  });
});

for (const engine of ENGINES) {
  describe(`Adyen disputes in live mode [${engine}]`, () => {
    let fake: AdyenFake;
    let service: TestService;
    let notifications: string;
    let eventHour = 0;

    beforeAll(async () => {
      fake = await new AdyenFake().start();
      service = await startTestService(engine, { env: { COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, ...fake.env(2_000) } });
      notifications = `${service.baseUrl}/connectors/adyen/notifications`;
    });
    afterAll(async () => {
      await service?.close();
      await fake?.stop();
    });

    /** A paid card payment of `amount` and the fake's record of it. */
    async function paid(m: TestMerchant, amount = '100.00'): Promise<{ token: string; payment: FakePayment }> {
      const ids = await customerWithCard(service, m);
      const sent = await service.post('/checkout/sendPayment', paymentBody(m, ids, { payment: { amount } }), { token: m.token });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const token = sent.body.payment_token as string;
      expect((await waitForStatus(service, m, token, settled)).general_info.transaction_status).toBe('PAID');
      return { token, payment: [...fake.payments.values()].find((p) => p.reference === `${token}:authorize`)! };
    }

    /**
     * Event dates an hour apart in the order they are asked for (`laterHours` moves one further on),
     * from five days ago: the defence periods they open (20 days, adyen-fake.ts) end in the future.
     */
    const at = (laterHours = 0) => new Date(Date.now() - 5 * DAY_MS + (eventHour++ + laterHours) * HOUR_MS);

    async function send(items: Record<string, unknown>[]): Promise<void> {
      expect(await fake.notify(notifications, items)).toEqual({ status: 200, text: '[accepted]' });
    }

    /** Waits until the merchant has `count` dispute notices kept and every one of them applied. */
    async function applied(m: TestMerchant, count: number) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const rows = await service.ctx.db.selectFrom('dispute_notices').select(['notice_key', 'applied_at', 'outcome']).where('merchant_id', '=', m.merchant_id).orderBy('occurred_at').execute();
        if (rows.length >= count && rows.every((r) => r.applied_at !== null)) return rows;
        if (Date.now() > deadline) throw new Error(`notices: ${JSON.stringify(rows)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }

    const disputesOf = (token: string) => service.ctx.db.selectFrom('disputes').selectAll().where('payment_token', '=', token).orderBy('created_at').execute();

    /** The ledger's accounts of a merchant; the whole ledger must balance. */
    async function books(m: TestMerchant) {
      const b = await balances(service.ctx.db, m.merchant_id);
      expect(Object.values(b).reduce((t, v) => t + (v ?? 0n), 0n), 'the journal balances').toBe(0n);
      return b;
    }

    const heldJournals = async (m: TestMerchant) =>
      (await service.ctx.db.selectFrom('ledger_entries').select('journal_id').distinct().where('merchant_id', '=', m.merchant_id).where('kind', '=', 'dispute.held').execute()).length;

    const statusEvents = async (m: TestMerchant) =>
      (await service.ctx.db.selectFrom('events').select('data').where('merchant_id', '=', m.merchant_id).where('type', '=', 'dispute.status_changed').orderBy('sequence').execute()).map((e) => e.data as { status: string; stage: string });

    /** Stores an evidence file as the upload route does (its row and its chunks). */
    async function attach(m: TestMerchant, disputeId: string, file: { kind: string; filename: string; contentType: string; content: Buffer }) {
      const fileId = randomUUID();
      await service.ctx.db
        .insertInto('dispute_files')
        .values({ file_id: fileId, dispute_id: disputeId, merchant_id: m.merchant_id, kind: file.kind, filename: file.filename, content_type: file.contentType, size_bytes: BigInt(file.content.length), sha256: createHash('sha256').update(file.content).digest('hex'), created_at: new Date() })
        .execute();
      for (let n = 0; n * 65_536 < file.content.length; n += 1) {
        await service.ctx.db.insertInto('dispute_file_chunks').values({ file_id: fileId, merchant_id: m.merchant_id, n, data: file.content.subarray(n * 65_536, (n + 1) * 65_536) }).execute();
      }
    }

    /** The Disputes API calls the fake received for one dispute, by operation. */
    const callsFor = (dispute: FakeDispute) =>
      fake.received.filter((r) => r.path.startsWith('/ca/services/DisputeService/v30/') && r.body.disputePspReference === dispute.pspReference).map((r) => ({ operation: r.path.split('/').pop()!, body: r.body, problems: r.problems }));

    /** A payment with a chargeback opened by notification: its dispute row. */
    async function chargedBack(m: TestMerchant, reasonCode = '10.4', amount = '100.00') {
      const { token, payment } = await paid(m, amount);
      const dispute = fake.openDispute(payment, { reasonCode, reason: 'Other Fraud-Card Absent Environment' });
      await send([fake.disputeItem(dispute, 'CHARGEBACK', { eventDate: at() })]);
      await applied(m, 1);
      const [row] = await disputesOf(token);
      return { token, payment, dispute, row: row! };
    }

    it('a CHARGEBACK opens a dispute that holds the money and tells the merchant; delivered again, it changes nothing', async () => {
      const m = await service.merchant();
      const { token, payment } = await paid(m, '80.00');
      const before = await books(m);
      const dispute = fake.openDispute(payment, { reasonCode: '10.4', reason: 'Other Fraud-Card Absent Environment' });
      const eventDate = at();
      const defensePeriodEndsAt = new Date(Date.now() + 10 * DAY_MS);
      const item = fake.disputeItem(dispute, 'CHARGEBACK', { eventDate, defensePeriodEndsAt });
      await send([item]);
      await applied(m, 1);
      const [row] = await disputesOf(token);
      expect(row).toMatchObject({ processor: 'adyen', processor_reference: dispute.pspReference, status: 'NEEDS_RESPONSE', stage: 'CHARGEBACK', amount_minor: 8000n, held_minor: 8000n, reason_code: '10.4', reason_category: 'FRAUD', reason_description: 'Other Fraud-Card Absent Environment' });
      // The notice's own deadline (read again from the clock, a slow run could cross a minute in between).
      expect(row!.evidence_due_by?.toISOString().slice(0, 16)).toBe(defensePeriodEndsAt.toISOString().slice(0, 16));
      const held = await books(m);
      expect(held.disputes_held).toBe(-8000n);
      expect((held.merchant_payable ?? 0n) - (before.merchant_payable ?? 0n)).toBe(8000n + row!.fee_minor);
      expect(await statusEvents(m)).toMatchObject([{ status: 'NEEDS_RESPONSE', stage: 'CHARGEBACK' }]);
      const read = await service.get(`/disputes/${row!.dispute_id}`, { token: m.token });
      expect(read.body).toMatchObject({ status: 'NEEDS_RESPONSE', amount: 80, reason_code: '10.4', processor: 'adyen' });
      expect((await waitForStatus(service, m, token, settled)).other_info.dispute_id).toBe(row!.dispute_id);

      await send([item, item]);
      await send([item]);
      await new Promise((r) => setTimeout(r, 300));
      expect(await applied(m, 1)).toHaveLength(1);
      expect(await disputesOf(token)).toHaveLength(1);
      expect(await books(m)).toEqual(held);
      expect(await statusEvents(m)).toHaveLength(1);
      expect(fake.received.every((r) => r.problems.length === 0)).toBe(true);
    });

    it('CHARGEBACK_REVERSED delivered before its CHARGEBACK: WON, nothing held, the books balanced', async () => {
      const m = await service.merchant();
      const { token, payment } = await paid(m, '60.00');
      const before = await books(m);
      const dispute = fake.openDispute(payment, { reasonCode: '13.1', reason: 'Merchandise/Services Not Received' });
      const opened = at();
      const reversed = at(2);
      await send([fake.disputeItem(dispute, 'CHARGEBACK_REVERSED', { eventDate: reversed })]);
      await applied(m, 1);
      await send([fake.disputeItem(dispute, 'CHARGEBACK', { eventDate: opened })]);
      const notices = await applied(m, 2);
      expect(notices.map((n) => n.outcome)).toEqual([expect.stringMatching(/^ignored: .* is WON$/), expect.stringMatching(/ WON$/)]);
      const rows = await disputesOf(token);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status: 'WON', held_minor: 0n, stage: 'CHARGEBACK' });
      const after = await books(m);
      expect(after.disputes_held ?? 0n).toBe(0n);
      expect((after.merchant_payable ?? 0n) - (before.merchant_payable ?? 0n)).toBe(rows[0]!.fee_minor);
    });

    it('a request for information, then the chargeback: INQUIRY escalates to CHARGEBACK, the money held once', async () => {
      const m = await service.merchant();
      const { token, payment } = await paid(m, '50.00');
      const dispute = fake.openDispute(payment, { reasonCode: ' 4853', schemeCode: 'mc', reason: 'Cardholder Dispute' });
      await send([fake.disputeItem(dispute, 'REQUEST_FOR_INFORMATION', { eventDate: at() })]);
      await applied(m, 1);
      const [inquiry] = await disputesOf(token);
      expect(inquiry).toMatchObject({ stage: 'INQUIRY', status: 'NEEDS_RESPONSE', held_minor: 0n, fee_minor: 0n, reason_code: '4853', reason_category: 'NOT_AS_DESCRIBED' });
      expect((await books(m)).disputes_held ?? 0n).toBe(0n);
      const chargeback = fake.disputeItem(dispute, 'CHARGEBACK', { eventDate: at() });
      await send([chargeback, chargeback]);
      await applied(m, 2);
      const rows = await disputesOf(token);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ dispute_id: inquiry!.dispute_id, stage: 'CHARGEBACK', status: 'NEEDS_RESPONSE', held_minor: 5000n });
      expect((await books(m)).disputes_held).toBe(-5000n);
      expect(await heldJournals(m)).toBe(1);
      expect((await statusEvents(m)).map((e) => e.stage)).toEqual(['INQUIRY', 'CHARGEBACK']);
    });

    it('a notification of chargeback holds at once; its CHARGEBACK adds nothing; an auto-defended one waits for Adyen', async () => {
      const m = await service.merchant();
      const { token, payment } = await paid(m, '40.00');
      const dispute = fake.openDispute(payment, { reasonCode: '10.4' });
      await send([fake.disputeItem(dispute, 'NOTIFICATION_OF_CHARGEBACK', { eventDate: at(), additionalData: { autoDefended: 'true', defendable: 'false' } })]);
      await send([fake.disputeItem(dispute, 'CHARGEBACK', { eventDate: at() })]);
      await applied(m, 3);
      const [row] = await disputesOf(token);
      expect(row).toMatchObject({ stage: 'CHARGEBACK', status: 'UNDER_REVIEW', held_minor: 4000n });
      expect(await heldJournals(m)).toBe(1);
      const submit = await service.post(`/disputes/${row!.dispute_id}/submit`, {}, { token: m.token });
      expect(submit.status).toBe(409);
      await send([fake.disputeItem(dispute, 'ISSUER_RESPONSE_TIMEFRAME_EXPIRED', { eventDate: at() })]);
      await applied(m, 4);
      expect((await disputesOf(token))[0]).toMatchObject({ status: 'WON', held_minor: 0n });
      expect((await books(m)).disputes_held ?? 0n).toBe(0n);
      expect(callsFor(dispute)).toEqual([]);
    });

    it('a defence supplied in the Customer Area puts the dispute UNDER_REVIEW; the end of the defence period then changes nothing', async () => {
      const m = await service.merchant();
      const { token, payment } = await paid(m, '30.00');
      const dispute = fake.openDispute(payment, { reasonCode: '13.3' });
      await send([fake.disputeItem(dispute, 'CHARGEBACK', { eventDate: at() }), fake.disputeItem(dispute, 'INFORMATION_SUPPLIED', { eventDate: at() }), fake.disputeItem(dispute, 'DISPUTE_DEFENSE_PERIOD_ENDED', { eventDate: at() })]);
      await applied(m, 3);
      expect((await disputesOf(token))[0]).toMatchObject({ status: 'UNDER_REVIEW', held_minor: 3000n });
      expect((await statusEvents(m)).map((e) => e.status)).toEqual(['NEEDS_RESPONSE', 'UNDER_REVIEW']);
    });

    it('a SECOND_CHARGEBACK after a reversal is a new round, answered under the dispute pspReference', async () => {
      const m = await service.merchant();
      const { token, payment } = await paid(m, '70.00');
      const before = await books(m);
      const dispute = fake.openDispute(payment, { reasonCode: '10.4' });
      await send([fake.disputeItem(dispute, 'CHARGEBACK', { eventDate: at() }), fake.disputeItem(dispute, 'CHARGEBACK_REVERSED', { eventDate: at() })]);
      await applied(m, 2);
      await send([fake.disputeItem(dispute, 'SECOND_CHARGEBACK', { eventDate: at() })]);
      await applied(m, 3);
      const [first, second] = await disputesOf(token);
      expect(first).toMatchObject({ status: 'WON', processor_reference: dispute.pspReference, held_minor: 0n });
      expect(second).toMatchObject({ status: 'NEEDS_RESPONSE', stage: 'SECOND_CHARGEBACK', processor_reference: `${dispute.pspReference}#SECOND_CHARGEBACK`, held_minor: 7000n });
      expect((await books(m)).disputes_held).toBe(-7000n);

      const accepted = await service.post(`/disputes/${second!.dispute_id}/accept`, {}, { token: m.token });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(accepted.body.status).toBe('ACCEPTED');
      expect(callsFor(dispute)).toEqual([{ operation: 'acceptDispute', body: { disputePspReference: dispute.pspReference, merchantAccountCode: fake.merchantAccount }, problems: [] }]);
      // Adyen's later word on the accepted round changes nothing.
      await send([fake.disputeItem(dispute, 'PREARBITRATION_LOST', { eventDate: at() })]);
      await applied(m, 4);
      const after = await books(m);
      expect(after.disputes_held ?? 0n).toBe(0n);
      expect((before.processor_receivable ?? 0n) - (after.processor_receivable ?? 0n)).toBe(7000n);
    });

    it('DISPUTE_DEFENSE_PERIOD_ENDED: a dispute still waiting for a response is LOST, its money the processor\'s', async () => {
      const m = await service.merchant();
      const { token, row, dispute } = await chargedBack(m, '10.4', '20.00');
      const before = await books(m);
      await send([fake.disputeItem(dispute, 'DISPUTE_DEFENSE_PERIOD_ENDED', { eventDate: at() })]);
      await applied(m, 2);
      expect((await disputesOf(token))[0]).toMatchObject({ dispute_id: row.dispute_id, status: 'LOST', held_minor: 0n });
      const after = await books(m);
      expect(after.disputes_held ?? 0n).toBe(0n);
      expect((before.processor_receivable ?? 0n) - (after.processor_receivable ?? 0n)).toBe(2000n);
    });

    it('submits a PDF and the text evidence: documents supplied with their types, then the defence; UNDER_REVIEW', async () => {
      const m = await service.merchant();
      const { row, dispute } = await chargedBack(m, '10.4');
      const receipt = textPdf('Receipt', [{ heading: 'Order 1234', body: 'One blue kite, R$ 100,00' }]);
      await attach(m, row.dispute_id, { kind: 'receipt', filename: 'receipt.pdf', contentType: 'application/pdf', content: receipt });
      const evidence = await service.post(`/disputes/${row.dispute_id}/evidence`, { product_description: 'A blue kite', shipping_carrier: 'Correios' }, { token: m.token });
      expect(evidence.status, JSON.stringify(evidence.body)).toBe(200);
      const submitted = await service.post(`/disputes/${row.dispute_id}/submit`, {}, { token: m.token });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
      expect(submitted.body.status).toBe('UNDER_REVIEW');

      const calls = callsFor(dispute);
      expect(calls.map((c) => c.operation)).toEqual(['retrieveApplicableDefenseReasons', 'supplyDefenseDocument', 'supplyDefenseDocument', 'defendDispute']);
      expect(calls.every((c) => c.problems.length === 0)).toBe(true);
      expect(calls[1]!.body.defenseDocuments).toEqual([{ content: receipt.toString('base64'), contentType: 'application/pdf', defenseDocumentTypeCode: 'AdditionalInformation' }]);
      const [statement] = calls[2]!.body.defenseDocuments as { content: string; contentType: string; defenseDocumentTypeCode: string }[];
      expect(statement).toMatchObject({ contentType: 'application/pdf', defenseDocumentTypeCode: 'DefenseMaterial' });
      const statementText = Buffer.from(statement!.content, 'base64').toString('latin1');
      expect(statementText.startsWith('%PDF-1.4')).toBe(true);
      expect(statementText).toContain('(A blue kite) Tj');
      expect(statementText).toContain('(Correios) Tj');
      expect(calls[3]!.body).toEqual({ disputePspReference: dispute.pspReference, merchantAccountCode: fake.merchantAccount, defenseReasonCode: 'AdditionalInformation' });
      expect(fake.disputes.byPsp.get(dispute.pspReference)).toMatchObject({ status: 'Pending', defenseReasonCode: 'AdditionalInformation' });
    });

    it('sends a PNG drawn on a PDF page; a document no type of the chosen defence fits is not sent', async () => {
      const m = await service.merchant();
      const { row, dispute } = await chargedBack(m, '13.1');
      const png = pngFile(2, 2, [255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 255, 9, 9, 9, 0]);
      await attach(m, row.dispute_id, { kind: 'shipping_documentation', filename: 'tracking.png', contentType: 'image/png', content: png });
      await attach(m, row.dispute_id, { kind: 'shipping_documentation', filename: 'label.pdf', contentType: 'application/pdf', content: textPdf('Label', []) });
      await service.post(`/disputes/${row.dispute_id}/evidence`, { uncategorized_text: 'Delivered on 2 March.' }, { token: m.token });
      const submitted = await service.post(`/disputes/${row.dispute_id}/submit`, {}, { token: m.token });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
      const supplied = callsFor(dispute).filter((c) => c.operation === 'supplyDefenseDocument').map((c) => (c.body.defenseDocuments as { content: string; contentType: string; defenseDocumentTypeCode: string }[])[0]!);
      expect(supplied.map((d) => [d.contentType, d.defenseDocumentTypeCode])).toEqual([['application/pdf', 'ProofOfGoodsOrServicesProvided'], ['application/pdf', 'DateMerchandiseShipped']]);
      expect(Buffer.from(supplied[0]!.content, 'base64').toString('latin1')).toContain('/Subtype /Image /Width 2 /Height 2');
      expect(fake.disputes.byPsp.get(dispute.pspReference)).toMatchObject({ status: 'Pending', defenseReasonCode: 'MerchandiseReceived' });
    });

    it('Adyen refusing leaves the dispute NEEDS_RESPONSE with 09.04.0001; so does evidence no defence can use, before anything is sent', async () => {
      const m = await service.merchant();
      const { row, dispute } = await chargedBack(m, '10.4');
      await service.post(`/disputes/${row.dispute_id}/evidence`, { uncategorized_text: 'The cardholder signed for it.' }, { token: m.token });
      fake.disputes.refuse('defendDispute', 'The defense period has ended');
      const refused = await service.post(`/disputes/${row.dispute_id}/submit`, {}, { token: m.token });
      expect(refused.status).toBe(502);
      expect(refused.body.errors).toEqual([{ code: '09.04.0001', description: expect.stringContaining('The defense period has ended') }]);
      expect((await service.get(`/disputes/${row.dispute_id}`, { token: m.token })).body.status).toBe('NEEDS_RESPONSE');
      fake.faults.push('HTTP_500_BEFORE_PROCESSING');
      const down = await service.post(`/disputes/${row.dispute_id}/submit`, {}, { token: m.token });
      expect(down.status).toBe(502);
      expect(down.body.errors[0].code).toBe('00.03.0001');
      expect((await service.get(`/disputes/${row.dispute_id}`, { token: m.token })).body.status).toBe('NEEDS_RESPONSE');
      const again = await service.post(`/disputes/${row.dispute_id}/submit`, {}, { token: m.token });
      expect(again.body.status).toBe('UNDER_REVIEW');
      // Refused once, not reached once (the 500 answered the first call), then defended.
      expect(callsFor(dispute).filter((c) => c.operation === 'defendDispute')).toHaveLength(2);
      expect(fake.disputes.byPsp.get(dispute.pspReference)?.status).toBe('Pending');

      const other = await chargedBack(m, '13.1');
      await service.post(`/disputes/${other.row.dispute_id}/evidence`, { uncategorized_text: 'Delivered.' }, { token: m.token });
      const unusable = await service.post(`/disputes/${other.row.dispute_id}/submit`, {}, { token: m.token });
      expect(unusable.status).toBe(502);
      expect(unusable.body.errors[0]).toMatchObject({ code: '09.04.0001', description: expect.stringContaining('MerchandiseReceived (DateMerchandiseShipped, ProofOfGoodsOrServicesProvided)') });
      expect(callsFor(other.dispute).map((c) => c.operation)).toEqual(['retrieveApplicableDefenseReasons']);
      expect((await service.get(`/disputes/${other.row.dispute_id}`, { token: m.token })).body.status).toBe('NEEDS_RESPONSE');
    });

    it('accepting calls acceptDispute: ACCEPTED, the held money the processor\'s', async () => {
      const m = await service.merchant();
      const { row, dispute } = await chargedBack(m, '10.4', '25.00');
      const before = await books(m);
      const accepted = await service.post(`/disputes/${row.dispute_id}/accept`, {}, { token: m.token });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(accepted.body.status).toBe('ACCEPTED');
      expect(callsFor(dispute)).toEqual([{ operation: 'acceptDispute', body: { disputePspReference: dispute.pspReference, merchantAccountCode: fake.merchantAccount }, problems: [] }]);
      expect(fake.disputes.byPsp.get(dispute.pspReference)?.status).toBe('Accepted');
      const after = await books(m);
      expect(after.disputes_held ?? 0n).toBe(0n);
      expect((before.processor_receivable ?? 0n) - (after.processor_receivable ?? 0n)).toBe(2500n);
    });

    it('finds the payment by originalReference; keeps unknown payments, failures and other accounts\' items as delivered and applies nothing', async () => {
      const m = await service.merchant();
      const { token, payment } = await paid(m, '15.00');
      const dispute = fake.openDispute(payment, { reasonCode: '10.4' });
      await send([fake.disputeItem(dispute, 'CHARGEBACK', { eventDate: at(), merchantReference: 'ORDER-77' })]);
      await applied(m, 1);
      expect(await disputesOf(token)).toMatchObject([{ processor_reference: dispute.pspReference, status: 'NEEDS_RESPONSE' }]);

      const stranger = fake.openDispute({ ...payment, pspReference: 'PSPNOTCOLIBRIS0001', reference: `${randomUUID()}:authorize` }, { reasonCode: '10.4' });
      const failed = fake.openDispute(payment, { reasonCode: '10.4' });
      // An event named like what every object inherits is an event Colibri does not act on.
      const inherited = fake.openDispute(payment, { reasonCode: '10.4' });
      await send([
        fake.disputeItem(stranger, 'CHARGEBACK', { eventDate: at() }),
        fake.disputeItem(failed, 'CHARGEBACK', { eventDate: at(), success: false }),
        fake.disputeItem(inherited, 'constructor', { eventDate: at(), originalReference: true }),
      ]);
      // Another merchant's own Adyen account reports a chargeback on this merchant's payment.
      const other = await service.merchant();
      const otherKey = randomBytes(32).toString('hex').toUpperCase();
      const admin = { headers: { authorization: `Bearer ${service.ctx.adminToken}` } };
      const own = await service.request('PUT', `/admin/merchants/${other.merchant_id}/connectors/CREDITCARD`, { connector: 'adyen', credentials: { merchant_account: 'OtherShopBR', hmac_key: otherKey } }, admin);
      expect(own.status, JSON.stringify(own.body)).toBe(200);
      const forged = fake.item(
        { eventCode: 'CHARGEBACK', success: true, pspReference: 'PSPFORGED00000001', merchantReference: `${token}:authorize`, amount: payment.amount, merchantAccountCode: 'OtherShopBR', additionalData: { chargebackReasonCode: '10.4' } },
        otherKey,
      );
      await send([forged]);
      const delivered = await service.ctx.db.selectFrom('connector_notifications').select('notification_key').where('notification_key', 'in', [`${stranger.pspReference}:CHARGEBACK:true`, `${failed.pspReference}:CHARGEBACK:false`, 'PSPFORGED00000001:CHARGEBACK:true', `${inherited.pspReference}:constructor:true`]).execute();
      expect(delivered).toHaveLength(4);
      await new Promise((r) => setTimeout(r, 300));
      const notices = await service.ctx.db.selectFrom('dispute_notices').select('processor_reference').where('processor_reference', 'in', [stranger.pspReference, failed.pspReference, 'PSPFORGED00000001', inherited.pspReference]).execute();
      expect(notices).toEqual([]);
      expect(await disputesOf(token)).toHaveLength(1);
    });

    it('refuses nothing silently when Adyen cannot be reached: ProcessorUnavailableError', async () => {
      const m = await service.merchant();
      const connector = adyenConnector.create({ api_key: fake.apiKey, merchant_account: fake.merchantAccount, hmac_key: fake.hmacKey, disputes_url: 'http://127.0.0.1:9', timeout_ms: '1000' }, { db: service.ctx.db, config: service.config });
      await expect(connector.disputes!.accept({ merchantId: m.merchant_id, processorReference: 'QFQTPCQ8HXSKGK82' })).rejects.toBeInstanceOf(ProcessorUnavailableError);
    });
  });
}
