import { expect } from 'vitest';
import type { TestMerchant, TestService } from './harness';

/** Shared helpers of the checkout tests (API and browser). */

export function generateBody(merchant: TestMerchant, overrides: Record<string, unknown> = {}) {
  return {
    amount: '100.00',
    asset: 'BRL',
    referenceId: `order-${Math.random().toString(36).slice(2, 10)}`,
    contractId: merchant.contract_id,
    method: 'PIX',
    ...overrides,
  };
}

export async function generate(service: TestService, merchant: TestMerchant, overrides: Record<string, unknown> = {}) {
  const response = await service.post('/checkout/generate', generateBody(merchant, overrides), { token: merchant.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { checkout_id: string; checkout_url: string; status: string; mode: string; methods: string[]; expires_at: string; payment: any };
}

/** Polls GET /checkout/<id> until the predicate holds. */
export async function waitForCheckout(service: TestService, merchant: TestMerchant, checkoutId: string, until: (body: any) => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await service.get(`/checkout/${checkoutId}`, { token: merchant.token });
    if (response.status === 200 && until(response.body)) return response.body;
    if (Date.now() > deadline) throw new Error(`checkout ${checkoutId} did not reach the expected state: ${JSON.stringify(response.body)}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

export const CARD_FORM = {
  name: 'Maria Silva',
  email: 'maria@example.com',
  tax_id: '529.982.247-25',
  number: '4111111111111111',
  exp_month: '12',
  exp_year: '2035',
  cvv: '123',
  holder_name: 'MARIA SILVA',
  installments: 1,
};

/**
 * An independent check of a boleto digitable line, written from the FEBRABAN layout rather than
 * from rails/boleto: the mod-10 digit of each of the first three fields and the mod-11 general digit
 * of the 44-digit barcode rebuilt from the line.
 */
export function febrabanCheck(line: string): { ok: boolean; barcode: string } {
  const d = line.replace(/\D/g, '');
  if (d.length !== 47) return { ok: false, barcode: '' };
  const mod10 = (digits: string) => {
    let sum = 0;
    for (let i = 0; i < digits.length; i += 1) {
      let n = Number(digits[digits.length - 1 - i]) * (i % 2 === 0 ? 2 : 1);
      if (n > 9) n = Math.floor(n / 10) + (n % 10);
      sum += n;
    }
    return (10 - (sum % 10)) % 10;
  };
  const fieldsOk = [d.slice(0, 9), d.slice(10, 20), d.slice(21, 31)].every((f, i) => mod10(f) === Number(d[[9, 20, 31][i] as number]));
  const barcode = d.slice(0, 4) + d[32] + d.slice(33, 47) + d.slice(4, 9) + d.slice(10, 20) + d.slice(21, 31);
  const withoutDv = barcode.slice(0, 4) + barcode.slice(5);
  let sum = 0;
  for (let i = 0; i < withoutDv.length; i += 1) sum += Number(withoutDv[withoutDv.length - 1 - i]) * ((i % 8) + 2);
  const rest = 11 - (sum % 11);
  const dv = rest === 0 || rest === 10 || rest === 11 ? 1 : rest;
  return { ok: fieldsOk && dv === Number(barcode[4]), barcode };
}
