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
}

export const REFUND_RULES: Readonly<Record<string, MethodRefundRules>> = {
  CREDITCARD: { partial: true, window: { months: 6 }, destination: 'NONE' },
  DEBITCARD: { partial: true, window: { months: 6 }, destination: 'NONE' },
  PIX: { partial: true, window: { days: 90 }, destination: 'NONE' },
  BOLETO: { partial: false, window: null, destination: 'PIX_KEY_OR_BANK_ACCOUNT' },
  OXXO: { partial: false, window: null, destination: 'CLABE' },
  PAYNET: { partial: false, window: null, destination: 'CLABE' },
  SPEI: { partial: false, window: null, destination: 'CLABE' },
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
