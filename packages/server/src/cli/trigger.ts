import { PAYOUT_EXAMPLES } from '../payouts/validation/examples';
import { type Colibri, type Schemas } from '../../../sdk/src/index';

/** One way to produce an event in sandbox: what it creates, and the outcome it waits for. */
interface Trigger {
  readonly description: string;
  readonly events: readonly string[];
  run(colibri: Colibri, merchant: Schemas['Merchant'], log: (line: string) => void): Promise<void>;
}

const APPROVED_CARD = '4111111111111111';
const DECLINED_CARD = '4000000000000002';
/** The contract's dispute test card: approved, then disputed in sandbox (CONTRACTS.md, Disputes). */
const DISPUTE_CARD = '4000000000000259';

function reference(kind: string): string {
  return `cli-${kind}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** Polls until `done` holds for what `read` returns, or fails after `timeoutMs`. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: no outcome after ${timeoutMs / 1000} s (${JSON.stringify(value).slice(0, 200)})`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

async function customer(colibri: Colibri, number: string) {
  const person = await colibri.persons.create({ name: 'Maria Silva', email: 'maria@example.com', tax_id: '529.982.247-25', tax_id_type: 'CPF' });
  const card = await colibri.cards.create({ public_person_id: person.public_person_id, number, exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'MARIA SILVA' });
  return { public_person_id: person.public_person_id, public_card_id: card.public_card_id };
}

async function cardPayment(colibri: Colibri, merchant: Schemas['Merchant'], number: string, log: (line: string) => void) {
  const payment = await colibri.payments.send({
    contract_id: merchant.contract_id,
    reference_id: reference('payment'),
    ...(await customer(colibri, number)),
    payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 },
  });
  const details = await colibri.payments.waitForOutcome(payment.payment_token);
  log(`payment ${payment.payment_token}: ${details.general_info.transaction_status}`);
  return { token: payment.payment_token, status: details.general_info.transaction_status };
}

/** Every event `colibri trigger` can produce, by name. */
export const TRIGGERS: Readonly<Record<string, Trigger>> = {
  'payment.paid': {
    description: 'a card payment that is approved',
    events: ['payment.status_changed (PROCESSING, PAID)'],
    run: async (colibri, merchant, log) => void (await cardPayment(colibri, merchant, APPROVED_CARD, log)),
  },
  'payment.declined': {
    description: 'a card payment declined for insufficient funds (card 4000000000000002)',
    events: ['payment.status_changed (PROCESSING, DECLINED)'],
    run: async (colibri, merchant, log) => void (await cardPayment(colibri, merchant, DECLINED_CARD, log)),
  },
  'refund.completed': {
    description: 'an approved card payment, refunded in full',
    events: ['payment.status_changed (PAID, REFUNDED)', 'refund.status_changed (COMPLETED)'],
    run: async (colibri, merchant, log) => {
      const payment = await cardPayment(colibri, merchant, APPROVED_CARD, log);
      const refund = await colibri.refunds.create({ payment_token: payment.token });
      const settled = await until(`refund ${refund.refund_id}`, () => colibri.refunds.get(refund.refund_id), (r) => r.refund_status === 'COMPLETED' || r.refund_status === 'FAILED');
      log(`refund ${refund.refund_id}: ${settled.refund_status}`);
    },
  },
  'dispute.created': {
    description: 'a payment of the dispute test card (4000000000000259), disputed by the sandbox acquirer at once rather than a day later',
    events: ['payment.status_changed (PROCESSING, PAID)', 'dispute.status_changed (NEEDS_RESPONSE)'],
    run: async (colibri, merchant, log) => {
      const payment = await cardPayment(colibri, merchant, DISPUTE_CARD, log);
      if (payment.status !== 'PAID') throw new Error(`payment ${payment.token} ended ${payment.status}, so it cannot be disputed`);
      const dispute = await colibri.sandbox.dispute(payment.token);
      log(`dispute ${dispute.dispute_id}: ${dispute.status} (${dispute.reason_category}, ${dispute.amount} ${dispute.asset}, evidence due by ${dispute.evidence_due_by})`);
    },
  },
  'checkout.paid': {
    description: 'a PIX checkout that the sandbox payer pays',
    events: ['checkout.status_changed (PAID)', 'payment.status_changed (PAID)'],
    run: async (colibri, merchant, log) => {
      const session = await colibri.checkout.generate({ amount: '10.00', asset: 'BRL', referenceId: reference('checkout'), contractId: merchant.contract_id, method: 'PIX' });
      let current = await colibri.checkout.get(session.checkout_id);
      if (current.payments.length === 0) {
        // The payer opens the page and chooses PIX, as the hosted page does. That call is the page's own
        // (public, in the operator and internal reference), not the merchant API's, so the SDK has no type for it.
        const attempt = await fetch(`${colibri.baseUrl}/pay/${encodeURIComponent(session.checkout_id)}/attempts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ method: 'PIX' }),
        });
        if (!attempt.ok) throw new Error(`POST /pay/${session.checkout_id}/attempts answered ${attempt.status}: ${await attempt.text()}`);
        current = await until(`checkout ${session.checkout_id}`, () => colibri.checkout.get(session.checkout_id), (c) => c.payments.length > 0);
      }
      await colibri.sandbox.pay(current.payments[0]!.payment_token);
      const paid = await until(`checkout ${session.checkout_id}`, () => colibri.checkout.get(session.checkout_id), (c) => c.status === 'PAID' || c.status === 'ERROR');
      log(`checkout ${session.checkout_id}: ${paid.status}`);
    },
  },
  'payout.paid': {
    description: 'a payout to a Colombian current account',
    events: ['payout.status_changed (PROCESSING, PAID)'],
    run: async (colibri, merchant, log) => {
      // A payout requires a notification URL: a loopback port where nothing listens, so that the
      // sandbox never calls out of the machine (the events still reach colibri listen through the stream).
      const item = { ...PAYOUT_EXAMPLES[0]!.item, notification_url: 'http://127.0.0.1:9/colibri-trigger' };
      const batch = await colibri.payouts.create({
        payoutTransactions: [{ ...item, contract_id: merchant.payout_contract_id, reference_id: reference('payout') }],
      } as never);
      const txId = batch.payoutTransactionResponses[0]!.tx_id;
      const paid = await until(`payout ${txId}`, () => colibri.payouts.get(txId), (p) => ['PAID', 'REJECTED', 'CANCELED'].includes(p.status));
      log(`payout ${txId}: ${paid.status}`);
    },
  },
  'subscription_charge.paid': {
    description: 'a monthly subscription whose first charge is due today and is paid',
    events: ['subscription_charge.status_changed (PAID)', 'payment.status_changed (PAID)'],
    run: async (colibri, _merchant, log) => {
      const ids = await customer(colibri, APPROVED_CARD);
      const today = String((await colibri.sandbox.clock()).now).slice(0, 10);
      const subscription = await colibri.subscriptions.create({
        ...ids,
        amount_type: 'FIXED',
        amount: '10.00',
        asset: 'BRL',
        interval: 'MONTHLY',
        first_due_date: today,
        reference_id: reference('subscription'),
      });
      const charges = await until(
        `subscription ${subscription.subscription_id}`,
        () => colibri.subscriptions.charges(subscription.subscription_id),
        (page) => page.content.some((c) => c.status === 'PAID' || c.status === 'FAILED'),
      );
      const charge = charges.content.find((c) => c.status === 'PAID' || c.status === 'FAILED')!;
      log(`subscription ${subscription.subscription_id}: charge ${charge.charge_id} ${charge.status}`);
    },
  },
};
