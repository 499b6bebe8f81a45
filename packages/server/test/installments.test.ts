import { describe, expect, it } from 'vitest';
import { computeFees, DEFAULT_FEE_PLAN, forScheme, type FeePlan } from '../src/fees/fee-plan';
import { installmentLabel, installmentOptions, legacyOptions, type InstallmentPlan } from '../src/fees/installments';
import { CARD_FORM, generate } from './checkout-fixtures';
import { customerWithCard, paymentBody, settled, waitForStatus } from './fixtures';
import { describeEachEngine, type TestMerchant } from './harness';
import { authRequest, CARDS } from './three-ds-fixtures';

/**
 * Installment plans (fees/installments.ts, docs/fees.md): options and amounts against values computed
 * by hand, and the plan as sendPayment, GET /installments, GET /checkout/<id> and the hosted page
 * apply it, on both engines.
 *
 * The plan below: up to 12 installments, 3 of them merchant-funded at a merchant fee of 1% per
 * installment beyond the first, 1.99% a month for the buyer beyond them (2.49% for Mastercard).
 *
 * Hand computation, tabela Price, PMT = PV · i / (1 − (1 + i)^−n) = PV · i · (1+i)^n / ((1+i)^n − 1):
 * - 1x of R$ 1000.00: no interest; one installment of 1000.00.
 * - 3x, merchant-funded: no interest; 1000.00 / 3 = 333.333… → 333.33 (half up), and the last takes the
 *   remainder: 1000.00 − 2 × 333.33 = 333.34. The merchant fee: 1000.00 × 1% × (3 − 1) = 20.00.
 * - 3x, none merchant-funded, at 1.99%: 1.0199³ = 1.060895910599; PMT = 1000 × 0.0199 × 1.060895910599 /
 *   0.060895910599 = 21.111928621 / 0.060895910599 = 346.6871… → 346.69; total 3 × 346.6871 = 1040.0614 →
 *   1040.06; last = 1040.06 − 2 × 346.69 = 346.68; interest 40.06.
 * - 10x at 1.99%: 1.0199¹⁰ = 1.217799854535; PMT = 1000 × 0.0199 × 1.217799854535 / 0.217799854535 =
 *   24.234217105 / 0.217799854535 = 111.26829 → 111.27; total 1112.6829 → 1112.68; last = 1112.68 −
 *   9 × 111.27 = 1112.68 − 1001.43 = 111.25; interest 112.68.
 * - 12x at 1.99%: 1.0199¹² = 1.266750549666; PMT = 1000 × 0.0199 × 1.266750549666 / 0.266750549666 =
 *   25.208335938 / 0.266750549666 = 94.50153 → 94.50; total 1134.0184 → 1134.02; last = 1134.02 −
 *   11 × 94.50 = 1134.02 − 1039.50 = 94.52; interest 134.02.
 * - 12x at 2.49% (Mastercard): 1.0249¹² = 1.343315164838; PMT = 1000 × 0.0249 × 1.343315164838 /
 *   0.343315164838 = 33.448547604 / 0.343315164838 = 97.42811 → 97.43; total 1169.1373 → 1169.14; last =
 *   1169.14 − 11 × 97.43 = 1169.14 − 1071.73 = 97.41.
 * - 3x of R$ 102.00 merchant-funded: 102.00 / 3 = 34.00 exactly, three times ("3x de R$ 34,00 sem juros").
 */
const PLAN: InstallmentPlan = { max_installments: 12, merchant_funded: 3, monthly_rate_ppm: 19_900, merchant_fee_ppm_per_installment: 10_000, schemes: { MASTER: { monthly_rate_ppm: 24_900 } } };
const NONE_FUNDED: InstallmentPlan = { ...PLAN, merchant_funded: 1 };
const pick = (options: ReturnType<typeof installmentOptions>, n: number) => {
  const o = options[n - 1]!;
  return [o.installmentMinor, o.lastInstallmentMinor, o.totalMinor, o.interestMinor, o.merchantFeeMinor, o.interestFree];
};

describe('installment options', () => {
  it('match the hand-computed values for 1, 3, 10 and 12 installments, with and without merchant-funded ones', () => {
    const visa = installmentOptions(PLAN, 100_000n, 'VISA');
    expect(visa).toHaveLength(12);
    expect(pick(visa, 1)).toEqual([100_000n, 100_000n, 100_000n, 0n, 0n, true]);
    expect(pick(visa, 3)).toEqual([33_333n, 33_334n, 100_000n, 0n, 2_000n, true]);
    expect(pick(visa, 10)).toEqual([11_127n, 11_125n, 111_268n, 11_268n, 0n, false]);
    expect(pick(visa, 12)).toEqual([9_450n, 9_452n, 113_402n, 13_402n, 0n, false]);
    const unfunded = installmentOptions(NONE_FUNDED, 100_000n, 'VISA');
    expect(pick(unfunded, 1)).toEqual([100_000n, 100_000n, 100_000n, 0n, 0n, true]);
    expect(pick(unfunded, 3)).toEqual([34_669n, 34_668n, 104_006n, 4_006n, 0n, false]);
    expect(pick(unfunded, 10)).toEqual(pick(visa, 10));
    expect(pick(unfunded, 12)).toEqual(pick(visa, 12));
    // Mastercard's own rate.
    expect(pick(installmentOptions(PLAN, 100_000n, 'MASTER'), 12)).toEqual([9_743n, 9_741n, 116_914n, 16_914n, 0n, false]);
    expect(installmentLabel(installmentOptions(PLAN, 10_200n)[2]!, 'BRL')).toBe('3x de R$ 34,00 sem juros');
    expect(installmentLabel(visa[9]!, 'BRL')).toBe('10x de R$ 111,27 com juros');
    expect(installmentLabel(visa[0]!, 'BRL')).toBe('1x de R$ 1.000,00');
  });

  it('add up to the total for every amount and count', () => {
    for (const amount of [100n, 101n, 999n, 10_200n, 123_457n, 99_999_999n]) {
      for (const o of installmentOptions(NONE_FUNDED, amount)) {
        expect(o.installmentMinor * BigInt(o.installments - 1) + o.lastInstallmentMinor).toBe(o.totalMinor);
        // The remainder is at most n half-cents from the installment.
        expect(o.lastInstallmentMinor - o.installmentMinor <= BigInt(o.installments) && o.installmentMinor - o.lastInstallmentMinor <= BigInt(o.installments)).toBe(true);
      }
    }
  });

  it('turn into fees: the interest for the customer, the merchant-funded cost for the merchant; a plan without one keeps its flat rate', () => {
    const plan = forScheme({ ...DEFAULT_FEE_PLAN, installment_plan: PLAN }, 'VISA');
    const fees = (n: number) => computeFees(plan.payments, 100_000n, { installments: n, installmentPlan: plan.installment_plan }).fees.filter((f) => f.type.startsWith('INSTALLMENT'));
    expect(fees(1)).toEqual([]);
    expect(fees(3)).toEqual([{ type: 'INSTALLMENT_FEE', payer: 'MERCHANT', amountMinor: 2_000n }]);
    expect(fees(10)).toEqual([{ type: 'INSTALLMENT_INTEREST', payer: 'CUSTOMER', amountMinor: 11_268n }]);
    // Flat 1% per installment beyond the first: 1000.00 × 1% × 2 = 20.00 over 3 installments.
    expect(legacyOptions(10_000, 100_000n)[2]).toMatchObject({ totalMinor: 102_000n, installmentMinor: 34_000n, interestMinor: 2_000n });
  });
});

describeEachEngine('installment plans', (service) => {
  const withPlan = async (m: TestMerchant, installmentPlan: InstallmentPlan) => {
    const plan: FeePlan = { ...DEFAULT_FEE_PLAN, installment_plan: installmentPlan };
    const set = await service().request('PUT', `/admin/merchants/${m.merchant_id}/fee-plan`, plan, { headers: { authorization: `Bearer ${service().ctx.adminToken}` } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
  };

  it('charges the plan in sendPayment, lists it in GET /installments and refuses installments beyond it', async () => {
    const m = await service().merchant();
    await withPlan(m, { ...PLAN, max_installments: 10 });
    const options = await service().get('/installments?amount=1000.00&asset=BRL&card_bin=411111', { token: m.token });
    expect(options.status, JSON.stringify(options.body)).toBe(200);
    expect(options.body).toMatchObject({ amount: 1000, currency: 'BRL', card_scheme: 'VISA', max_installments: 10 });
    expect(options.body.options[2]).toEqual({ installments: 3, installment_amount: 333.33, last_installment_amount: 333.34, total_amount: 1000, interest_amount: 0, interest_free: true, monthly_rate: '0.00', label: '3x de R$ 333,33 sem juros' });
    expect(options.body.options[9]).toEqual({ installments: 10, installment_amount: 111.27, last_installment_amount: 111.25, total_amount: 1112.68, interest_amount: 112.68, interest_free: false, monthly_rate: '1.99', label: '10x de R$ 111,27 com juros' });
    const master = await service().get('/installments?amount=1000.00&asset=BRL&card_bin=555555', { token: m.token });
    expect(master.body.options[9]).toMatchObject({ monthly_rate: '2.49', interest_free: false });
    const bad = await service().get('/installments?amount=abc&asset=BRL&card_bin=41', { token: m.token });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { description: string }) => e.description.split(':')[0])).toEqual(['amount', 'card_bin']);

    const ids = await customerWithCard(service(), m);
    const send = (installments: number) => service().post('/checkout/sendPayment', paymentBody(m, ids, { payment: { amount: '1000.00', installments } }), { token: m.token });
    const ten = await send(10);
    expect(ten.status, JSON.stringify(ten.body)).toBe(200);
    expect(ten.body.totals).toMatchObject({ amount: 1000, customer_fees: 112.68, customer_amount: 1112.68 });
    expect(ten.body.customer_fees).toEqual({ INSTALLMENT_INTEREST: 112.68 });
    const details = await waitForStatus(service(), m, ten.body.payment_token, settled);
    expect(details.payment_info).toMatchObject({ installments: 10, payment_amount: 1112.68 });
    expect(details.fee_info.fee).toContainEqual(expect.objectContaining({ fee_type: 'INSTALLMENT_INTEREST', payer: 'CUSTOMER', value: 112.68 }));

    const three = await send(3);
    expect(three.body.totals).toMatchObject({ customer_fees: 0, customer_amount: 1000 });
    const funded = await waitForStatus(service(), m, three.body.payment_token, settled);
    // SERVICE_FEE 29.90 + 0.39, TAXES_FEE 3.80, and the merchant-funded installments' 20.00.
    expect(funded.fee_info).toMatchObject({ merchant_amount: 54.09 });
    expect(funded.fee_info.fee).toContainEqual(expect.objectContaining({ fee_type: 'INSTALLMENT_FEE', payer: 'MERCHANT', value: 20 }));

    const eleven = await send(11);
    expect(eleven.status).toBe(400);
    expect(eleven.body.errors).toEqual([{ code: '00.04.0017', description: "payment.installments: this merchant's plan offers at most 10 installments." }]);
  });

  it('shows the options in GET /checkout/<id> and on the hosted page, and the page pays in installments', async () => {
    const m = await service().merchant();
    await withPlan(m, { ...PLAN, max_installments: 10 });
    const session = await generate(service(), m, { method: 'CREDITCARD', amount: '102.00' });
    const read = await service().get(`/checkout/${session.checkout_id}`, { token: m.token });
    expect(read.body.installment_options).toHaveLength(10);
    expect(read.body.installment_options[2]).toMatchObject({ installments: 3, installment_amount: 34, label: '3x de R$ 34,00 sem juros' });
    const page = await service().get(`/pay/${session.checkout_id}?lang=pt-BR`);
    const labels = [...page.text.matchAll(/<option value="(\d+)"[^>]*>([^<]*)<\/option>/g)].map((m) => [Number(m[1]), m[2]!.replace(/\u00a0/g, ' ')]);
    expect(labels).toHaveLength(10);
    expect(labels[0]).toEqual([1, '1x de R$ 102,00']);
    expect(labels[2]).toEqual([3, '3x de R$ 34,00 sem juros']);
    // 10x at 1.99% on 102.00: PMT = 102 × 0.0199 × 1.217799854535 / 0.217799854535 = 11.3494 → 11.35;
    // the total, 10 × 11.3494 = 113.494, is shown beside it (the last installment takes the rounding).
    expect(labels[9]).toEqual([10, '10x de R$ 11,35 com juros (total R$ 113,49)']);
    const beyond = await service().post(`/pay/${session.checkout_id}/card`, { ...CARD_FORM, installments: 11 });
    expect(beyond.status).toBe(400);
    expect(beyond.body.errors[0].code).toBe('00.04.0017');
  });

  it('has the 3DS server, which the browser library calls, refuse installments beyond the plan before authenticating', async () => {
    const m = await service().merchant();
    await withPlan(m, { ...PLAN, max_installments: 6 });
    const ask = (installments: number) =>
      service().post('/3ds/authentications', { contractId: m.contract_id, env: 'SANDBOX', ...authRequest(CARDS.frictionless, { paymentMethod: { ...authRequest(CARDS.frictionless).paymentMethod, installments } }) });
    const beyond = await ask(7);
    expect(beyond.status).toBe(400);
    expect(beyond.body.errors).toEqual([{ code: '00.04.0017', description: "paymentMethod.installments: this merchant's plan offers at most 6 installments." }]);
    expect(await service().ctx.db.selectFrom('three_ds_authentications').select('id').where('merchant_id', '=', m.merchant_id).execute()).toEqual([]);
    expect((await ask(6)).body.status).toBe('SUCCESS');
  });
});
