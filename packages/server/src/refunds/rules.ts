import type { ErrorKey } from '../http/errors';
import { addMonthsClamped } from '../rails/calendar';
import { formatDate } from '../lib/time-format';

/**
 * What each payment method allows (docs/refunds.md shows this table). Windows count from the payment
 * date on the merchant clock; `null` means no limit.
 */
export interface MethodRefundRules {
  readonly partial: boolean;
  readonly window: { readonly days: number } | { readonly months: number } | null;
  readonly destination: 'NONE' | 'PIX_KEY_OR_BANK_ACCOUNT' | 'CLABE';
  /**
   * The one currency a payment of the method is refunded in: the currency it was paid in, which is its
   * country's. The spec says both "a refund is in the currency of the original payment" and "only BRL
   * transactions are eligible" while listing Mexican methods; Colibri reads the BRL rule as the rule of
   * the Brazilian methods, and refunds OXXO, PAYNET and SPEI in MXN (docs/refunds.md, Currency).
   */
  readonly currency: 'BRL' | 'MXN';
}

export const REFUND_RULES: Readonly<Record<string, MethodRefundRules>> = {
  CREDITCARD: { partial: true, window: { months: 6 }, destination: 'NONE', currency: 'BRL' },
  DEBITCARD: { partial: true, window: { months: 6 }, destination: 'NONE', currency: 'BRL' },
  PIX: { partial: true, window: { days: 90 }, destination: 'NONE', currency: 'BRL' },
  // A PicPay payment goes back to the payer's wallet, within the PIX window that wallet payments share.
  PICPAY: { partial: true, window: { days: 90 }, destination: 'NONE', currency: 'BRL' },
  BOLETO: { partial: false, window: null, destination: 'PIX_KEY_OR_BANK_ACCOUNT', currency: 'BRL' },
  OXXO: { partial: false, window: null, destination: 'CLABE', currency: 'MXN' },
  PAYNET: { partial: false, window: null, destination: 'CLABE', currency: 'MXN' },
  SPEI: { partial: false, window: null, destination: 'CLABE', currency: 'MXN' },
};

/** Payment statuses a refund may start from. */
export const REFUNDABLE_STATUSES = ['PAID', 'PARTIALLY_REFUNDED'] as const;

/**
 * The last moment a refund may be requested, or null for none. Months are calendar months from the
 * payment date (31 August + 6 months = 28 or 29 February), days are 24-hour days.
 * @example refundDeadline(REFUND_RULES.PIX, paidAt) // paidAt + 90 days
 */
export function refundDeadline(rules: MethodRefundRules, paidAt: Date): Date | null {
  if (!rules.window) return null;
  if ('days' in rules.window) return new Date(paidAt.getTime() + rules.window.days * 86_400_000);
  const day = addMonthsClamped(formatDate(paidAt), rules.window.months);
  return new Date(`${day}T${paidAt.toISOString().slice(11)}`);
}

export type RefundFailure = { key: ErrorKey; description: string };
