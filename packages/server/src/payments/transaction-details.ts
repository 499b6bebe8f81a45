import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { toJsonNumber } from '../lib/money';
import { formatDate, formatDateTime } from '../lib/time-format';
import { maskTaxId } from '../rails/brazil';
import { refundView } from '../refunds/refund-record';
import { exponentOf } from './payment-record';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `GET /transactionDetails/<payment_token>`: every group and field of the spec's Transaction details
 * resource. Tax id and card number are masked; history is newest first.
 * @example const details = await transactionDetails(ctx, merchantId, token);
 */
export async function transactionDetails(ctx: AppContext, merchantId: string, paymentToken: string) {
  if (!UUID.test(paymentToken)) throw new ApiError('NOT_FOUND', 'payment_token: payment not found.');
  const payment = await ctx.db
    .selectFrom('payments')
    .selectAll()
    .where('payment_token', '=', paymentToken)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  if (!payment) throw new ApiError('NOT_FOUND', 'payment_token: payment not found.');
  const [person, card, fees, history, refunds] = await Promise.all([
    payment.person_id ? ctx.db.selectFrom('persons').selectAll().where('id', '=', payment.person_id).executeTakeFirst() : undefined,
    payment.card_id ? ctx.db.selectFrom('cards').selectAll().where('id', '=', payment.card_id).executeTakeFirst() : undefined,
    ctx.db.selectFrom('payment_fees').selectAll().where('payment_token', '=', paymentToken).orderBy('id').execute(),
    ctx.db.selectFrom('payment_status_history').selectAll().where('payment_token', '=', paymentToken).orderBy('at', 'desc').orderBy('id', 'desc').execute(),
    ctx.db.selectFrom('refunds').selectAll().where('payment_token', '=', paymentToken).orderBy('refund_id').execute(),
  ]);
  const exponent = exponentOf(payment.currency);
  const money = (minor: bigint) => toJsonNumber(minor, exponent);
  const chargedMinor = payment.captured_minor > 0n ? payment.captured_minor : payment.amount_minor;
  const fxInfo =
    payment.original_currency === payment.currency
      ? null
      : {
          original_currency: payment.original_currency,
          counter_currency: payment.currency,
          rate: payment.fx_rate ?? '',
          rate_timestemp: payment.fx_rate_date ?? formatDate(payment.created_at),
        };
  return {
    general_info: {
      transaction_status: payment.status,
      transaction_id: payment.payment_token,
      external_id: payment.reference_id,
      project_id: payment.contract_id,
    },
    customer_info: {
      customer_id: payment.person_id ?? '',
      tax_id: person ? maskTaxId(person.tax_id_type, person.tax_id) : '',
      tax_id_type: person?.tax_id_type ?? '',
      payer_tax_id: person ? maskTaxId(person.tax_id_type, person.tax_id) : '',
      payer_tax_id_type: person?.tax_id_type ?? '',
      payer_name: person?.name ?? '',
      customer_contact: person?.email ?? '',
      order_ip: payment.ip_address ?? '',
      // Deriving a country from an address needs a geolocation database, which Colibri does not ship.
      order_ip_country: null,
    },
    payment_info: {
      order_method: payment.method,
      order_method_country: 'BR',
      card_number: card?.masked_number ?? '',
      card_scheme: card?.scheme ?? '',
      order_amount: toJsonNumber(payment.original_amount_minor, exponentOf(payment.original_currency)),
      order_currency: payment.original_currency,
      payment_amount: money(chargedMinor + payment.customer_fees_minor),
      payment_currency: payment.currency,
      refunded_amount: money(payment.refunded_minor),
      error_code: payment.error_code,
      error_description: payment.error_description,
      expiration_date: payment.expires_at ? formatDateTime(payment.expires_at) : '',
      end_to_end_id: payment.end_to_end_id ?? '',
      subscription_id: payment.subscription_id ?? '',
      flags: [] as string[],
    },
    fee_info: {
      total_fee_values: money(payment.merchant_fees_minor + payment.customer_fees_minor),
      merchant_amount: money(payment.merchant_fees_minor),
      fee: fees.map((f) => ({
        fee_type: f.fee_type,
        payer: f.payer,
        value: money(f.amount_minor),
        currency: f.currency,
        fxInfo,
      })),
    },
    other_info: { dispute_id: '' },
    transaction_history: history.map((h) => ({ status: h.status, timestamp: formatDateTime(h.at) })),
    // Beyond the spec's groups: the payment's refunds, oldest first (docs/refunds.md).
    refunds: refunds.map(refundView),
  };
}
