import { expect, it } from 'vitest';
import { RetryLater, type Job } from '../src/jobs/queue';
import { processPaymentHandler, processPaymentJob } from '../src/payments/process-payment';
import { PROCESS_PAYMENT_JOB, type ProcessPaymentJob } from '../src/payments/payment-job';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';
import { crashAfterCommit, customerWithCard, operationWithoutJob, paymentBody, settled, waitForStatus } from './fixtures';

/**
 * The three money defects that the operation record (payments/operations.ts) removes, each caused for
 * real: a job run again, a capture abandoned and the clock moved past the TTL, a keyed request whose
 * process died after its effect committed.
 */

const DAY_S = 24 * 60 * 60;

async function preAuthorized(service: TestService, m: TestMerchant, amount = '100.00') {
  const ids = await customerWithCard(service, m);
  const sent = await service.post('/checkout/sendPayment', paymentBody(m, ids, { payment: { amount, delay_capture: true } }), { token: m.token });
  expect(sent.status, sent.text).toBe(200);
  const token = sent.body.payment_token as string;
  await waitForStatus(service, m, token, settled);
  return token;
}

/** The job of an operation as the worker would hand it over on a later attempt (a re-run after a crash). */
function rerun(operationId: string, merchantId: string): Job<ProcessPaymentJob> {
  return { id: 'rerun', kind: PROCESS_PAYMENT_JOB, payload: { operationId, merchantId }, attempts: 2, createdAt: new Date(), outcomeUnknown: true };
}

async function operations(service: TestService, token: string) {
  return service.ctx.db.selectFrom('payment_operations').selectAll().where('payment_token', '=', token).orderBy('requested_at').orderBy('kind').execute();
}

async function journalKinds(service: TestService, token: string) {
  const rows = await service.ctx.db.selectFrom('ledger_entries').select(['journal_id', 'kind']).where('resource_id', '=', token).execute();
  return [...new Map(rows.map((r) => [r.journal_id, r.kind])).values()].sort();
}

describeEachEngine('money in flight', (service) => {
  it('an authorisation job run again while a capture is in flight changes nothing, and the capture lands', async () => {
    const m = await service().merchant();
    const token = await preAuthorized(service(), m);
    // The capture reaches no processor for now: it stays in flight, its payment PROCESSING.
    await service().post('/sandbox/processor/faults', { operation: 'capture', fault: 'UNAVAILABLE', times: 1000 }, { token: m.token });
    const capture = await service().post(`/checkout/${token}/capture`, { amount: 100 }, { token: m.token });
    expect(capture.status, capture.text).toBe(200);
    expect(capture.body.transaction_status).toBe('PROCESSING');

    const [authorization] = (await operations(service(), token)).filter((o) => o.kind === 'authorize');
    if (!authorization) throw new Error('no authorisation recorded');
    expect(authorization.status).toBe('APPROVED');
    // The worker died after settling the authorisation and before deleting its job: the job runs again.
    await processPaymentHandler(service().ctx)(rerun(authorization.id, m.merchant_id));
    await processPaymentHandler(service().ctx)(rerun(authorization.id, m.merchant_id));

    const during = await service().ctx.db.selectFrom('payments').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
    expect(during).toMatchObject({ status: 'PROCESSING', captured_minor: 0n });
    expect(await journalKinds(service(), token)).toEqual(['authorization']);

    await service().ctx.db.deleteFrom('sandbox_faults').where('merchant_id', '=', m.merchant_id).execute();
    await service().ctx.db.updateTable('jobs').set({ run_at: new Date() }).where('kind', '=', PROCESS_PAYMENT_JOB).execute();
    service().ctx.workerSignal.poke();
    const details = await waitForStatus(service(), m, token, settled);
    expect(details.general_info.transaction_status).toBe('PAID');
    const paid = await service().ctx.db.selectFrom('payments').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
    expect(paid.captured_minor).toBe(10_000n);
    expect(await journalKinds(service(), token)).toEqual(['authorization', 'capture', 'release']);
    expect((await operations(service(), token)).map((o) => [o.kind, o.status])).toEqual([
      ['authorize', 'APPROVED'],
      ['capture', 'APPROVED'],
    ]);
    // What the processor captured is what Colibri shows.
    const captured = await service().ctx.db.selectFrom('sandbox_operations').select(['operation', 'result']).where('merchant_id', '=', m.merchant_id).where('operation', '=', 'capture').execute();
    expect(captured.map((c) => (c.result as { status: string }).status)).toEqual(['APPROVED']);
    // And the capture's job, run again, changes nothing either.
    const captureOp = (await operations(service(), token)).find((o) => o.kind === 'capture');
    await processPaymentHandler(service().ctx)(rerun(captureOp?.id ?? '', m.merchant_id));
    expect(await journalKinds(service(), token)).toEqual(['authorization', 'capture', 'release']);
  });

  it('keeps the authorisation time when an abandoned capture returns the payment: a capture past 5 days from it is refused', async () => {
    const m = await service().merchant();
    const token = await preAuthorized(service(), m);
    const first = await service().ctx.db.selectFrom('payments').select('pre_authorized_at').where('payment_token', '=', token).executeTakeFirstOrThrow();
    expect(first.pre_authorized_at).not.toBeNull();

    // Day 4: a capture that never reaches the processor is abandoned at its deadline.
    expect((await service().post('/sandbox/clock/advance', { seconds: 4 * DAY_S }, { token: m.token })).status).toBe(200);
    await service().post('/sandbox/processor/faults', { operation: 'capture', fault: 'UNAVAILABLE', times: 1000 }, { token: m.token });
    expect((await service().post(`/checkout/${token}/capture`, { amount: 100 }, { token: m.token })).status).toBe(200);
    const capture = (await operations(service(), token)).find((o) => o.kind === 'capture');
    if (!capture) throw new Error('no capture recorded');
    await processPaymentJob(service().ctx).abandon?.(rerun(capture.id, m.merchant_id), 'deadline passed');

    const back = await service().ctx.db.selectFrom('payments').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
    expect(back.status).toBe('PRE_AUTHORIZED');
    expect(back.error_code).toBe('PROCESSOR_UNAVAILABLE');
    expect(back.pre_authorized_at).toEqual(first.pre_authorized_at);
    expect((await operations(service(), token)).find((o) => o.kind === 'capture')).toMatchObject({ status: 'FAILED', result_code: 'PROCESSOR_UNAVAILABLE' });
    expect(await journalKinds(service(), token)).toEqual(['authorization']);

    // Day 6: five days have passed since the authorisation, whatever came back since.
    await service().post('/sandbox/clock/advance', { seconds: 2 * DAY_S }, { token: m.token });
    const late = await service().post(`/checkout/${token}/capture`, { amount: 100 }, { token: m.token });
    expect(late.status, late.text).toBe(422);
    // Refused as expired, or, if the TTL sweep voided it first, as no longer pre-authorised.
    expect(['00.04.0012', '00.04.0010']).toContain(late.body.errors[0].code);
    expect((await operations(service(), token)).filter((o) => o.kind === 'capture')).toHaveLength(1);
    const cancel = await service().post(`/checkout/${token}/cancel`, {}, { token: m.token });
    expect(cancel.status).toBe(422);
  });

  it.each(['capture', 'cancel'] as const)('answers a keyed %s retried after its process died with the original answer, not 422', async (verb) => {
    const m = await service().merchant();
    const token = await preAuthorized(service(), m);
    const key = `${verb}-crash-${Date.now()}`;
    const body = verb === 'capture' ? { amount: 40 } : {};
    const first = await service().post(`/checkout/${token}/${verb}`, body, { token: m.token, headers: { 'idempotency-key': key } });
    expect(first.status, first.text).toBe(200);
    await waitForStatus(service(), m, token, settled);
    // The process died after its effect committed and before its answer was stored: the key's claim lapses.
    await crashAfterCommit(service().ctx.db, key);
    const retry = await service().post(`/checkout/${token}/${verb}`, body, { token: m.token, headers: { 'idempotency-key': key } });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body).toMatchObject({ payment_token: token, transaction_status: 'PROCESSING' });
    expect((await operations(service(), token)).filter((o) => o.kind === verb)).toHaveLength(1);
    // The same key for another amount is another request.
    if (verb === 'capture') {
      await crashAfterCommit(service().ctx.db, key);
      const other = await service().post(`/checkout/${token}/capture`, { amount: 41 }, { token: m.token, headers: { 'idempotency-key': key } });
      expect(other.status).toBe(422);
      expect(other.body.errors[0].code).toBe('00.06.0001');
    }
    const details = await waitForStatus(service(), m, token, settled);
    expect(details.general_info.transaction_status).toBe(verb === 'capture' ? 'PAID' : 'CANCELED');
  });

  it('never gives up as never sent an operation whose earlier attempt may have reached the processor, when the processor cannot say', async () => {
    const m = await service().merchant();
    const token = await preAuthorized(service(), m);
    const db = service().ctx.db;
    const payment = await db.selectFrom('payments').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
    await db.updateTable('payments').set({ status: 'PROCESSING' }).where('payment_token', '=', token).execute();
    // A capture whose worker reached the processor and died before recording anything.
    const capture = await operationWithoutJob(db, { ...payment, status: 'PROCESSING' }, 'capture');
    const captured = await service().ctx.processor.capture({ merchantId: m.merchant_id, reference: capture.operation.reference, processorId: payment.processor_id ?? '', amountMinor: capture.operation.amount_minor });
    expect(captured.status).toBe('APPROVED');
    // Its retry cannot ask the processor what happened: the outcome is unknown, not "never sent".
    await service().post('/sandbox/processor/faults', { operation: 'status', fault: 'UNAVAILABLE', times: 1 }, { token: m.token });
    const retry = processPaymentHandler(service().ctx)(rerun(capture.operation.id, m.merchant_id));
    await expect(retry).rejects.toBeInstanceOf(RetryLater);
    await expect(retry).rejects.toMatchObject({ outcome: 'UNKNOWN' });
    // The next retry can ask, and settles from the processor's own record: captured once.
    await processPaymentHandler(service().ctx)(rerun(capture.operation.id, m.merchant_id));
    expect(await db.selectFrom('payments').select(['status', 'captured_minor']).where('payment_token', '=', token).executeTakeFirstOrThrow()).toEqual({ status: 'PAID', captured_minor: 10_000n });
    const records = await db.selectFrom('sandbox_operations').select('reference').where('reference', '=', capture.operation.reference).execute();
    expect(records).toHaveLength(1);
  });
});
