import { sql } from 'kysely';
import { jobHandlers, periodicTasks } from '../../src/job-registry';
import { describe, step as drawStep, type Command, type Step } from './generator';
import { check, snapshot, type Violation } from './invariants';
import { JobDriver, WorkerKilled, type JobOutcome } from './jobs';
import { Model, PRE_AUTHORIZATION_TTL_HOURS, type ModelMerchant } from './model';
import { Prng } from './prng';
import type { SimService } from './service';

/**
 * One seed's run, in the spirit of TigerBeetle's VOPR and Jepsen's bank test: merchants' commands, job
 * steps and faults interleaved as the seed's PRNG decides, the invariants checked after every step, then
 * the processor healed, the queue drained and everything checked once more. A run is a function of its
 * seed (and the engine: PostgreSQL's dropped connections fail whatever statement meets them first).
 */
export interface SeedResult {
  readonly seed: number;
  readonly engine: string;
  readonly steps: number;
  readonly violations: readonly Violation[];
  /** The steps run, one line each; the last is the one after which the violations were found. */
  readonly trace: readonly string[];
  readonly durationMs: number;
}

export function replayCommand(seed: number, engine: string): string {
  return `npm run simulate -- --seed ${seed}${engine === 'pglite' ? '' : ` --engine ${engine}`}`;
}

const CARD = '4111111111111111';
/** The simulator's test card declined with code 51 (processor/sandbox-simulator.ts). */
const DECLINED_CARD = '4000000000000002';
const OPERATIONS = ['authorize', 'capture', 'cancel', 'refund', 'status'] as const;

export async function runSeed(sim: SimService, seed: number, options: { maxSteps?: number } = {}): Promise<SeedResult> {
  const started = Date.now();
  const prng = new Prng(seed);
  const model = new Model();
  const driver = new JobDriver(sim.checkDb, jobHandlers(sim.ctx), sim.ctx.config.work.deadlineMs);
  const ttlTask = periodicTasks(sim.ctx).find((task) => task.name === 'pre-authorization-ttl');
  if (!ttlTask) throw new Error('no pre-authorisation TTL sweep in the job registry');
  await driver.reset();
  const trace: string[] = [];
  const violations: Violation[] = [];
  /** Steps for which 5xx answers are allowed: the service's connections were just dropped. */
  let dropped = 0;
  let droppedNow: number;
  const fail = (code: Violation['code'], message: string) => violations.push({ code, message });

  try {
    const merchants = prng.chance(0.25) ? 2 : 1;
    for (let n = 0; n < merchants; n++) model.merchants.push(await newMerchant(sim, `Sim ${seed}/${n}`));

    let requests = 0;
    const httpStatus = (what: string, status: number, body: unknown) => {
      if (status >= 500 && status !== 502 && dropped === 0) fail('server-error', `${what} answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
    };

    const run = async (c: Command | { kind: 'drop-connections' }): Promise<void> => {
      if (c.kind === 'drop-connections') {
        // PGlite runs inside this process on one connection that nothing can drop: the step does nothing there.
        if (sim.engine === 'postgres') {
          droppedNow = await sim.dropServiceConnections();
          dropped = 3;
        }
        return;
      }
      if (c.kind === 'pay') {
        const m = model.merchants[c.merchant % model.merchants.length] as ModelMerchant;
        const body = {
          contract_id: m.contractId,
          reference_id: `sim-${seed}-${++requests}`,
          public_person_id: m.personId,
          public_card_id: c.declined ? m.declinedCardId : m.cardId,
          payment: { amount: (c.cents / 100).toFixed(2), method: 'CREDITCARD', asset: 'BRL', installments: 1, delay_capture: c.delayCapture },
        };
        const sent = await sim.request('POST', '/checkout/sendPayment', m.token, body);
        httpStatus('sendPayment', sent.status, sent.body);
        if (sent.status === 200) {
          model.payments.push({ token: sent.body.payment_token, merchant: m, amountMinor: BigInt(c.cents), delayCapture: c.delayCapture, preAuthorizedAtHours: undefined, capturesAccepted: 0 });
        }
        return;
      }
      const p = model.payments[c.payment % model.payments.length];
      if (!p) return;
      const cents = Number(p.amountMinor);
      if (c.kind === 'capture') {
        const captureCents = c.share === 'whole' ? cents : c.share === 'over' ? cents + 1 : Math.max(1, Math.floor(c.fraction * (cents - 1)));
        const headers: Record<string, string> = c.keyed ? { 'idempotency-key': `sim-capture-${seed}-${++requests}` } : {};
        const age = model.preAuthorizedFor(p);
        const response = await sim.request('POST', `/checkout/${p.token}/capture`, p.merchant.token, { amount: captureCents / 100 }, headers);
        httpStatus('capture', response.status, response.body);
        if (response.status === 200) {
          p.capturesAccepted++;
          if (age !== undefined && age >= PRE_AUTHORIZATION_TTL_HOURS) fail('ttl', `payment ${p.token}: capture accepted ${age} h after it was first pre-authorised`);
          if (c.crash) {
            // The service died after committing the capture and before keeping its answer: the key is
            // left claimed with a lapsed lease (http/idempotency.ts), and the merchant sends it again.
            const key = headers['idempotency-key'] as string;
            await sql`update idempotency_keys set state = 'IN_PROGRESS', response_status = null, response_body = null, response_content_type = null,
                lease_until = now() - interval '1 hour' where key = ${key}`.execute(sim.checkDb);
            const retry = await sim.request('POST', `/checkout/${p.token}/capture`, p.merchant.token, { amount: captureCents / 100 }, headers);
            httpStatus('capture retried', retry.status, retry.body);
            if (retry.status !== 200) fail('keyed-retry', `payment ${p.token}: a capture retried with its Idempotency-Key after a crash answered ${retry.status} ${JSON.stringify(retry.body).slice(0, 200)}`);
          }
        }
      } else if (c.kind === 'cancel') {
        const response = await sim.request('POST', `/checkout/${p.token}/cancel`, p.merchant.token, {});
        httpStatus('cancel', response.status, response.body);
      } else if (c.kind === 'refund') {
        const refundCents = c.share === 'part' ? Math.max(1, Math.floor(c.fraction * cents)) : c.share === 'declined' ? Math.floor((c.fraction * cents) / 100) * 100 + 13 : undefined;
        const body = { payment_token: p.token, ...(refundCents === undefined ? {} : { amount: refundCents / 100 }) };
        const response = await sim.request('POST', '/refund', p.merchant.token, body);
        httpStatus('refund', response.status, response.body);
      } else {
        const response = await sim.request('GET', `/transactionDetails/${p.token}`, p.merchant.token);
        httpStatus('transactionDetails', response.status, response.body);
        if (response.status === 200) {
          const row = await sim.checkDb.selectFrom('payments').select('status').where('payment_token', '=', p.token).executeTakeFirst();
          const shown = response.body?.general_info?.transaction_status;
          if (row && shown !== row.status) fail('details', `payment ${p.token}: transaction details say ${shown}, the payment is ${row.status}`);
        }
      }
    };

    const runJob = async (s: Extract<Step, { kind: 'job' }>): Promise<JobOutcome | 'idle'> => {
      let due = await driver.due();
      if (due.length === 0) {
        const next = driver.nextDue();
        if (next === undefined) return 'idle';
        driver.now = Math.max(driver.now, next);
        due = await driver.due();
      }
      const id = due[s.pick % due.length];
      if (id === undefined) return 'idle';
      let nestedDone = !s.nested;
      let killDone = s.mode !== 'kill-before-processor' && s.mode !== 'kill-after-processor';
      sim.processor.hook = async (phase) => {
        if (!nestedDone && s.nested?.phase === phase) {
          nestedDone = true;
          const hook = sim.processor.hook;
          sim.processor.hook = undefined;
          try {
            await run(s.nested.command);
          } finally {
            sim.processor.hook = hook;
          }
        }
        if (!killDone && ((s.mode === 'kill-before-processor' && phase === 'before') || (s.mode === 'kill-after-processor' && phase === 'after'))) {
          killDone = true;
          throw new WorkerKilled(phase === 'before' ? 'before the processor call' : 'after the processor answered');
        }
      };
      try {
        return await driver.run(id, { leaveUndeleted: s.mode === 'leave-undeleted', again: s.mode === 'twice' });
      } finally {
        sim.processor.hook = undefined;
      }
    };

    const sweep = async () => {
      try {
        await ttlTask.run();
      } catch (error) {
        if (dropped === 0) throw error;
      }
    };

    const examine = async (options: { final: boolean; afterSweep: boolean }) => {
      const snap = await snapshot(sim.checkDb, model, sim.processor, options);
      for (const row of snap.payments) {
        const p = model.payment(row.payment_token);
        if (p && row.status === 'PRE_AUTHORIZED' && p.preAuthorizedAtHours === undefined) p.preAuthorizedAtHours = p.merchant.clockHours;
      }
      violations.push(...check(model, snap, options));
    };

    const steps = options.maxSteps ?? prng.int(20, 50);
    for (let i = 0; i < steps && violations.length === 0; i++) {
      const world = { merchants: model.merchants.length, payments: model.payments.length, dueJobs: (await driver.due()).length };
      const s = drawStep(prng, world);
      if (dropped > 0) dropped--;
      let afterSweep = false;
      let note = '';
      try {
        switch (s.kind) {
          case 'job':
            note = ` → ${await runJob(s)}`;
            break;
          case 'clock': {
            const m = model.merchants[s.merchant % model.merchants.length] as ModelMerchant;
            const response = await sim.request('POST', '/sandbox/clock/advance', m.token, { seconds: s.hours * 3600 });
            httpStatus('clock advance', response.status, response.body);
            if (response.status === 200) m.clockHours += s.hours;
            driver.now += s.hours * 3_600_000;
            await sweep();
            afterSweep = true;
            break;
          }
          case 'wait':
            driver.now += s.seconds * 1000;
            break;
          case 'fault': {
            const m = model.merchants[s.merchant % model.merchants.length] as ModelMerchant;
            const response = await sim.request('POST', '/sandbox/processor/faults', m.token, { operation: s.operation, fault: s.fault, times: s.times });
            httpStatus('fault', response.status, response.body);
            break;
          }
          case 'heal':
            await heal(sim, model.merchants[s.merchant % model.merchants.length] as ModelMerchant);
            break;
          case 'drop-connections':
            droppedNow = 0;
            await run(s);
            note = sim.engine === 'postgres' ? ` → ${droppedNow} connections terminated` : ' → nothing on PGlite';
            break;
          case 'sweep':
            await sweep();
            afterSweep = true;
            break;
          default:
            await run(s);
        }
      } catch (error) {
        if (dropped === 0) fail('server-error', `step threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
      trace.push(`${i + 1}. ${describe(s)}${note}`);
      // Steps that write none of the tables checked (the run's clock, the processor's faults, a job
      // step with nothing due) leave the last check standing.
      const unchanged = s.kind === 'wait' || s.kind === 'fault' || s.kind === 'heal' || note === ' → idle';
      if (!unchanged) await examine({ final: false, afterSweep });
    }

    if (violations.length === 0) {
      // The end: the processor heals, every job runs until the queue is empty, the TTL is swept.
      dropped = 0;
      for (const m of model.merchants) await heal(sim, m);
      await drain(driver);
      await sweep();
      await drain(driver);
      trace.push('end: processor healed, queue drained, TTL swept');
      await examine({ final: true, afterSweep: true });
    }
  } finally {
    sim.processor.hook = undefined;
    for (const m of model.merchants) sim.processor.forget(m.merchantId);
    await driver.reset();
  }
  return { seed, engine: sim.engine, steps: trace.length, violations, trace, durationMs: Date.now() - started };
}

async function newMerchant(sim: SimService, name: string): Promise<ModelMerchant> {
  const m = await sim.merchant(name);
  const person = await sim.request('POST', '/checkout/person', m.token, { name: 'Maria Silva', email: 'maria@example.com', tax_id: '529.982.247-25', tax_id_type: 'CPF' });
  if (person.status !== 200) throw new Error(`person: ${person.status} ${JSON.stringify(person.body)}`);
  const card = async (number: string) => {
    const response = await sim.request('POST', '/checkout/card', m.token, {
      public_person_id: person.body.public_person_id,
      number,
      exp_month: '12',
      exp_year: '2035',
      cvv: '123',
      holder_name: 'MARIA SILVA',
    });
    if (response.status !== 200) throw new Error(`card: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.public_card_id as string;
  };
  return { merchantId: m.merchantId, contractId: m.contractId, token: m.token, personId: person.body.public_person_id, cardId: await card(CARD), declinedCardId: await card(DECLINED_CARD), clockHours: 0 };
}

async function heal(sim: SimService, m: ModelMerchant): Promise<void> {
  for (const operation of OPERATIONS) await sim.request('POST', '/sandbox/processor/faults', m.token, { operation, fault: 'UNAVAILABLE', times: 0 });
}

/** Runs every job as it falls due, moving the virtual clock to the next one, until none is pending (or the bound). */
async function drain(driver: JobDriver): Promise<void> {
  for (let n = 0; n < 500; n++) {
    const due = await driver.due();
    const id = due[0];
    if (id === undefined) {
      const next = driver.nextDue();
      if (next === undefined) return;
      driver.now = Math.max(driver.now, next);
      continue;
    }
    await driver.run(id);
  }
}

