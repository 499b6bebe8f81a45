import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Colibri, verifyCallback } from '../../sdk/src/index';
import { startReceiver, type CallbackReceiver } from './callback-receiver';
import { buildCli } from '../src/cli';
import { describeEachEngine, type TestMerchant } from './harness';
import { CLI, stopChildren, waitForOutput, type Child } from './processes';
import { reportColumn } from './report-fixtures';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The service's packages, hidden from every command this file runs: the developer's commands talk to a
 * service over HTTP and must start without loading them (src/cli.ts loads src/server-commands.ts only
 * for the commands that run the service or open its database).
 */
const WITHOUT_SERVICE_PACKAGES = {
  NODE_OPTIONS: `--import=${new URL('./fakes/without-packages.mjs', import.meta.url).href}`,
  COLIBRI_TEST_HIDDEN_PACKAGES: 'fastify,kysely,pg,@electric-sql/pglite,typebox,pino',
};

/** The child's environment: this test's profiles directory, none of the caller's own credentials, no service packages. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^COLIBRI_(URL|API_KEY|API_SECRET|WEBHOOK_SECRET|PROFILE)$/.test(key)));
  return { ...clean, ...WITHOUT_SERVICE_PACKAGES, ...env };
}

/** Runs the real `colibri` command as its own process. */
function colibri(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: childEnv(env), timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describeEachEngine('colibri login, listen, trigger, events, clock and reports against a running service', (service) => {
  let configDir: string;
  let env: Record<string, string>;
  let merchant: TestMerchant;
  let receiver: CallbackReceiver;
  let listener: Child | undefined;

  beforeAll(async () => {
    configDir = mkdtempSync(join(tmpdir(), 'colibri-cli-'));
    env = { COLIBRI_CONFIG_DIR: configDir };
    merchant = await service().merchant('CLI Shop');
    receiver = await startReceiver();
  });
  afterAll(async () => {
    if (listener) await stopChildren([listener]);
    await receiver?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('documents every command with examples and the environment it reads', async () => {
    const help = await colibri(['trigger', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('subscription_charge.paid');
    expect(help.stdout).toContain('dispute.created');
    // Without the service's packages, a command that opens the database cannot start: the hiding holds.
    const migrate = await colibri(['migrate'], { ...env, COLIBRI_DATA_DIR: configDir });
    expect(migrate.code).not.toBe(0);
    expect(migrate.stderr).toMatch(/Cannot find package '(fastify|kysely|pg|typebox|pino)'/);
    // The other commands' help, from the same program in this process (each process start costs a second or more).
    const program = buildCli();
    for (const path of [['login'], ['listen'], ['trigger'], ['events', 'list'], ['events', 'resend'], ['clock', 'advance'], ['reports', 'export']]) {
      let command = program;
      for (const name of path) command = command.commands.find((c) => c.name() === name)!;
      let text = '';
      command.configureOutput({ writeOut: (s) => (text += s) });
      command.outputHelp();
      expect(text, path.join(' ')).toContain('Examples:');
      expect(text, path.join(' ')).toContain('COLIBRI_API_KEY');
    }
    // The service's own commands too: examples and the variables they read.
    for (const [name, variable] of [['serve', 'DATABASE_URL'], ['worker', 'COLIBRI_WORKER_CONCURRENCY'], ['migrate', 'DATABASE_URL'], ['doctor', 'COLIBRI_MODE']] as const) {
      const command = program.commands.find((c) => c.name() === name)!;
      let text = '';
      command.configureOutput({ writeOut: (s) => (text += s) });
      command.outputHelp();
      expect(text, name).toContain('Examples:');
      expect(text, name).toContain(variable);
    }
  });

  it('login checks the credentials and saves a profile readable by its owner only', { timeout: 120_000 }, async () => {
    const wrong = await colibri(['login', '--url', service().baseUrl, '--api-key', merchant.api_key, '--api-secret', 'cs_wrong'], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^colibri: Colibri answered 401/);

    const login = await colibri(['login', '--url', service().baseUrl, '--api-key', merchant.api_key, '--api-secret', merchant.api_secret, '--webhook-secret', merchant.webhook_secret], env);
    expect(login.stderr).toBe('');
    expect(login.stdout).toContain(`merchant ${merchant.merchant_id}`);
    const file = join(configDir, 'profiles.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default).toEqual({
      url: service().baseUrl,
      api_key: merchant.api_key,
      api_secret: merchant.api_secret,
      webhook_secret: merchant.webhook_secret,
    });
  });

  it('listen forwards the events of every trigger, signed with the webhook secret', async () => {
    const child = spawn(process.execPath, [CLI, 'listen', '--forward-to', `${receiver.url}/forwarded`], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    const output: string[] = [];
    const stdout: string[] = [];
    child.stdout.on('data', (c: Buffer) => (output.push(c.toString()), stdout.push(c.toString())));
    child.stderr.on('data', (c: Buffer) => output.push(c.toString()));
    const started: Child = { process: child, output, stdout, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
    listener = started;
    await waitForOutput(started, 'Ready: forwarding the events of merchant');

    const expected: Record<string, { type: string; status: string }> = {
      'payment.paid': { type: 'payment.status_changed', status: 'PAID' },
      'payment.declined': { type: 'payment.status_changed', status: 'DECLINED' },
      'refund.completed': { type: 'refund.status_changed', status: 'COMPLETED' },
      'dispute.created': { type: 'dispute.status_changed', status: 'NEEDS_RESPONSE' },
      'checkout.paid': { type: 'checkout.status_changed', status: 'PAID' },
      'payout.paid': { type: 'payout.status_changed', status: 'PAID' },
      'subscription_charge.paid': { type: 'subscription_charge.status_changed', status: 'PAID' },
    };
    // The triggers run at once, as separate processes: each waits on the simulator more than on the CPU.
    const outputs: Record<string, string> = {};
    await Promise.all(
      Object.entries(expected).map(async ([name, { type, status }]) => {
        const run = await colibri(['trigger', name], env);
        outputs[name] = run.stdout;
        expect(run.stderr, name).toBe('');
        expect(run.code, name).toBe(0);
        expect(run.stdout, name).toContain(status);
        expect(run.stdout, name).toContain(`Triggered ${name}`);
        await receiver.waitFor(
          () => receiver.at('/forwarded').some((r) => r.body.includes(`"type":"${type}"`) && new RegExp(`"(refund_)?status":"${status}"`).test(r.body)),
          30_000,
          `${type} ${status} forwarded`,
        );
      }),
    );
    // The dispute is the sandbox acquirer's, open now on the dispute test card's payment, not a day later.
    const disputeId = /dispute ([0-9a-f-]{36}): NEEDS_RESPONSE \(FRAUD, 10 BRL, evidence due by \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)/.exec(outputs['dispute.created']!)?.[1];
    expect(disputeId, outputs['dispute.created']).toBeDefined();
    const sdk = new Colibri({ baseUrl: service().baseUrl, apiKey: merchant.api_key, apiSecret: merchant.api_secret });
    const dispute = await sdk.disputes.get(disputeId!);
    expect(dispute).toMatchObject({ status: 'NEEDS_RESPONSE', stage: 'CHARGEBACK', reason_code: '10.4', processor: 'sandbox' });
    const payment = await sdk.payments.details(dispute.payment_token);
    expect(payment.payment_info.card_number).toMatch(/0259$/);
    for (const forwarded of receiver.at('/forwarded')) {
      const event = verifyCallback(forwarded.body, forwarded.headers as Record<string, string>, merchant.webhook_secret);
      expect(forwarded.id).toBe(event.id);
    }
    // Each event once, whatever the stream's look-back.
    const ids = receiver.at('/forwarded').map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(started.output.join('')).toMatch(/payment\.status_changed\s+PAID\s+[0-9a-f-]{36}\s+--> \[204\] POST/);
  }, 300_000);

  it('trigger refuses an unknown event with a one-line error, even one named like what every object inherits', { timeout: 60_000 }, async () => {
    for (const event of ['payment.exploded', 'constructor', '__proto__']) {
      const run = await colibri(['trigger', event], env);
      expect(run.code, event).toBe(1);
      expect(run.stderr.trim()).toBe(`colibri: unknown event ${event}: one of payment.paid, payment.declined, refund.completed, dispute.created, checkout.paid, payout.paid, subscription_charge.paid`);
    }
  });

  it('events list shows the events and events resend delivers one again', async () => {
    const sdk = new Colibri({ baseUrl: service().baseUrl, apiKey: merchant.api_key, apiSecret: merchant.api_secret });
    const person = await sdk.persons.create({ name: 'Ana Souza', email: 'ana@example.com', tax_id: '529.982.247-25', tax_id_type: 'CPF' });
    const card = await sdk.cards.create({ public_person_id: person.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'ANA SOUZA' });
    const payment = await sdk.payments.send({
      contract_id: merchant.contract_id,
      reference_id: 'cli-resend',
      notification_url: `${receiver.url}/callbacks`,
      public_person_id: person.public_person_id,
      public_card_id: card.public_card_id,
      payment: { amount: '12.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 },
    });
    await receiver.waitFor(() => receiver.at('/callbacks').some((r) => r.body.includes('"PAID"')), 15_000, 'the PAID callback');

    const list = await colibri(['events', 'list', '--type', 'payment.status_changed', '--limit', '5'], env);
    expect(list.code).toBe(0);
    const paidLine = list.stdout.split('\n').find((l) => l.includes(payment.payment_token) && l.includes('PAID'));
    expect(paidLine, list.stdout).toBeDefined();
    const eventId = paidLine!.split(/\s+/)[0]!;

    const before = receiver.at('/callbacks').filter((r) => r.id === eventId).length;
    const resend = await colibri(['events', 'resend', eventId], env);
    expect(resend.stderr).toBe('');
    expect(resend.stdout).toContain(`${eventId} payment.status_changed`);
    // The callback worker makes the attempt after the answer (the event is answered pending).
    await receiver.waitFor(() => receiver.at('/callbacks').filter((r) => r.id === eventId).length === before + 1, 15_000, 'the event delivered again');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.at('/callbacks').filter((r) => r.id === eventId).length, 'delivered again once').toBe(before + 1);
  }, 120_000);

  it('clock advance moves the merchant clock', async () => {
    const sdk = new Colibri({ baseUrl: service().baseUrl, apiKey: merchant.api_key, apiSecret: merchant.api_secret });
    const before = Date.parse(String((await sdk.sandbox.clock()).now));
    const run = await colibri(['clock', 'advance', '1d12h'], env);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('clock advanced 129600 s');
    const after = Date.parse(String((await sdk.sandbox.clock()).now));
    expect(after - before).toBeGreaterThanOrEqual(129_600_000);
    expect(after - before).toBeLessThan(129_600_000 + 60_000);
    const bad = await colibri(['clock', 'advance', 'tomorrow'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('colibri: duration tomorrow');
  }, 120_000);

  it('reports export streams the rows to stdout and reports progress on stderr', async () => {
    // A report of its own, with no date filter: the default reports cover the current month of the
    // merchant's clock, which the test above moved a day and a half on (into the next month, near a month's end).
    const created = await service().post('/reports/myreports/report', {
      name: 'Every payment', folder: 'Tests', report_type: 'PAYIN', report_type_name: 'Pay-ins', enable: true, offset: null, limit: null,
      fields: [reportColumn(0, 2, 'Transaction id'), reportColumn(1, 1, 'Status')], filters: [], group_by: [''], order_by: [],
    }, { token: merchant.token });
    expect(created.status, created.text).toBe(201);
    const report = created.body as { id: number };
    const run = await colibri(['reports', 'export', String(report.id), '--format', 'csv'], env);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split(/\r?\n/);
    // The header and the rows of this merchant's payments made above.
    expect(lines.length).toBeGreaterThan(1);
    // The export was counted first (X-Total-Count), and every counted row arrived.
    expect(run.stderr).toMatch(new RegExp(`exported report ${report.id} as csv: ${lines.length - 1} rows, ${Buffer.byteLength(run.stdout)} bytes\n$`));
  }, 120_000);
});
