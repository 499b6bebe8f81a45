import fc from 'fast-check';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { balances } from '../src/ledger/ledger';
import { describeEachEngine } from './harness';
import { customerWithCard, paymentBody, settled, waitForStatus } from './fixtures';

type Command =
  | { kind: 'pay'; cents: number; delayCapture: boolean }
  | { kind: 'capture'; index: number; cents: number }
  | { kind: 'cancel'; index: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('pay' as const), cents: fc.integer({ min: 100, max: 500_000 }), delayCapture: fc.boolean() }),
  fc.record({ kind: fc.constant('capture' as const), index: fc.nat(5), cents: fc.integer({ min: 1, max: 600_000 }) }),
  fc.record({ kind: fc.constant('cancel' as const), index: fc.nat(5) }),
);

describeEachEngine('payments ledger invariants (property)', (service) => {
  it('for random sequences of pay, pre-authorise, capture and cancel, journals balance and captured ≤ authorised', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 6 }), async (commands) => {
        const m = await service().merchant();
        const ids = await customerWithCard(service(), m);
        const tokens: string[] = [];
        for (const c of commands) {
          if (c.kind === 'pay') {
            const body = paymentBody(m, ids, { payment: { amount: (c.cents / 100).toFixed(2), delay_capture: c.delayCapture } });
            const sent = await service().post('/checkout/sendPayment', body, { token: m.token });
            expect(sent.status).toBe(200);
            tokens.push(sent.body.payment_token);
          } else if (tokens.length > 0) {
            const token = tokens[c.index % tokens.length] as string;
            const response =
              c.kind === 'capture'
                ? await service().post(`/checkout/${token}/capture`, { amount: c.cents / 100 }, { token: m.token })
                : await service().post(`/checkout/${token}/cancel`, {}, { token: m.token });
            expect([200, 400, 422]).toContain(response.status);
          }
          for (const token of tokens) await waitForStatus(service(), m, token, settled);
        }

        const unbalanced = await sql<{ journal_id: string }>`
          select journal_id from ledger_entries where merchant_id = ${m.merchant_id}
          group by journal_id having sum(amount_minor) <> 0`.execute(service().ctx.db);
        expect(unbalanced.rows).toEqual([]);
        const payments = await service().ctx.db.selectFrom('payments').selectAll().where('merchant_id', '=', m.merchant_id).execute();
        let held = 0n;
        let receivable = 0n;
        for (const p of payments) {
          expect(p.captured_minor <= p.authorized_minor).toBe(true);
          if (p.status === 'PRE_AUTHORIZED') held += p.amount_minor + p.customer_fees_minor;
          if (p.status === 'PAID') receivable += p.captured_minor + p.customer_fees_minor;
          if (p.status === 'CANCELED') expect(p.captured_minor).toBe(0n);
        }
        const b = await balances(service().ctx.db, m.merchant_id);
        expect(b.card_authorizations ?? 0n).toBe(held);
        expect(b.processor_receivable ?? 0n).toBe(receivable);
      }),
      { numRuns: 12, seed: Number(process.env.PROPERTY_SEED ?? 20261122) },
    );
  }, 120_000);
});
