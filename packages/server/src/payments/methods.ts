/**
 * Every method a payment is paid by (a payout's aside), in the order checkout sessions list them.
 * Checkout offers them (checkout/states.ts, CHECKOUT_METHODS); reports and transaction details read
 * where each is paid.
 */
export const PAYMENT_METHODS = ['PIX', 'CREDITCARD', 'DEBITCARD', 'BOLETO', 'PICPAY', 'OXXO', 'PAYNET', 'SPEI'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** Where each method is paid: its country and the currency the payment (or the session) is priced in. */
export const METHOD_MARKET: Readonly<Record<PaymentMethod, { country: 'BR' | 'MX'; currency: 'BRL' | 'MXN' }>> = {
  PIX: { country: 'BR', currency: 'BRL' },
  CREDITCARD: { country: 'BR', currency: 'BRL' },
  DEBITCARD: { country: 'BR', currency: 'BRL' },
  BOLETO: { country: 'BR', currency: 'BRL' },
  PICPAY: { country: 'BR', currency: 'BRL' },
  OXXO: { country: 'MX', currency: 'MXN' },
  PAYNET: { country: 'MX', currency: 'MXN' },
  SPEI: { country: 'MX', currency: 'MXN' },
};

/**
 * The country where a payment's method is paid (METHOD_MARKET): MX for OXXO, PAYNET and SPEI, BR for
 * every other method.
 * @example methodCountry('SPEI') // 'MX'
 */
export function methodCountry(method: string): 'BR' | 'MX' {
  return METHOD_MARKET[method as PaymentMethod]?.country ?? 'BR';
}
