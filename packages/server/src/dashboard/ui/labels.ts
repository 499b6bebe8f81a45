import type { Language } from './i18n';

/**
 * The codes the API answers (statuses, methods, callback states, event types) as the reader says them.
 * The page shows the word and keeps the code: each label carries it as its `title` and `data-code`, and
 * filters still send the code. A code missing here shows as itself, so a new status is never hidden.
 * Statuses of different resources that share a code (PAID, CANCELED…) share a word, so one table serves.
 */
type Words = Readonly<Record<string, string>>;

const en: Words = {
  // Payments, checkouts, payouts, refunds, subscriptions and their charges, settlements, disputes.
  CREATED: 'Created',
  PROCESSING: 'Processing',
  PRE_AUTHORIZED: 'Pre-authorised',
  PAID: 'Paid',
  DECLINED: 'Declined',
  CANCELED: 'Canceled',
  EXPIRED: 'Expired',
  ERROR: 'Error',
  REFUNDED: 'Refunded',
  PARTIALLY_REFUNDED: 'Partially refunded',
  REQUESTED: 'Requested',
  COMPLETED: 'Completed',
  FAILED: 'Failed',
  REJECTED: 'Rejected',
  ACTIVE: 'Active',
  PAST_DUE: 'Past due',
  PENDING: 'Pending',
  IN_TRANSIT: 'In transit',
  NEEDS_RESPONSE: 'Needs response',
  UNDER_REVIEW: 'Under review',
  WON: 'Won',
  LOST: 'Lost',
  ACCEPTED: 'Accepted',
  // Methods.
  CREDITCARD: 'Credit card',
  DEBITCARD: 'Debit card',
  PIX: 'PIX',
  BOLETO: 'Boleto',
  PICPAY: 'PicPay',
  OXXO: 'OXXO',
  PAYNET: 'Paynet',
  SPEI: 'SPEI',
  BANK_TRANSFER: 'Bank transfer',
  // Callbacks: an event's state, a delivery's, an attempt's result.
  pending: 'Pending',
  delivered: 'Delivered',
  failed: 'Failed',
  skipped: 'Not sent (no URL)',
  retry_scheduled: 'Retry scheduled',
  'payment.status_changed': 'Payment status changed',
  'checkout.status_changed': 'Checkout status changed',
  'refund.status_changed': 'Refund status changed',
  'payout.status_changed': 'Payout status changed',
  'subscription_charge.status_changed': 'Subscription charge status changed',
  'dispute.status_changed': 'Dispute status changed',
};

const pt: Words = {
  CREATED: 'Criado',
  PROCESSING: 'Processando',
  PRE_AUTHORIZED: 'Pré-autorizado',
  PAID: 'Pago',
  DECLINED: 'Recusado',
  CANCELED: 'Cancelado',
  EXPIRED: 'Expirado',
  ERROR: 'Erro',
  REFUNDED: 'Reembolsado',
  PARTIALLY_REFUNDED: 'Reembolsado em parte',
  REQUESTED: 'Solicitado',
  COMPLETED: 'Concluído',
  FAILED: 'Falhou',
  REJECTED: 'Rejeitado',
  ACTIVE: 'Ativa',
  PAST_DUE: 'Em atraso',
  PENDING: 'Pendente',
  IN_TRANSIT: 'Em trânsito',
  NEEDS_RESPONSE: 'Aguardando resposta',
  UNDER_REVIEW: 'Em análise',
  WON: 'Ganha',
  LOST: 'Perdida',
  ACCEPTED: 'Aceita',
  CREDITCARD: 'Cartão de crédito',
  DEBITCARD: 'Cartão de débito',
  PIX: 'PIX',
  BOLETO: 'Boleto',
  PICPAY: 'PicPay',
  OXXO: 'OXXO',
  PAYNET: 'Paynet',
  SPEI: 'SPEI',
  BANK_TRANSFER: 'Transferência bancária',
  pending: 'Pendente',
  delivered: 'Entregue',
  failed: 'Falhou',
  skipped: 'Não enviado (sem URL)',
  retry_scheduled: 'Nova tentativa agendada',
  'payment.status_changed': 'Status do pagamento mudou',
  'checkout.status_changed': 'Status do checkout mudou',
  'refund.status_changed': 'Status do reembolso mudou',
  'payout.status_changed': 'Status do repasse mudou',
  'subscription_charge.status_changed': 'Status da cobrança da assinatura mudou',
  'dispute.status_changed': 'Status da contestação mudou',
};

const es: Words = {
  CREATED: 'Creado',
  PROCESSING: 'Procesando',
  PRE_AUTHORIZED: 'Preautorizado',
  PAID: 'Pagado',
  DECLINED: 'Rechazado',
  CANCELED: 'Cancelado',
  EXPIRED: 'Vencido',
  ERROR: 'Error',
  REFUNDED: 'Reembolsado',
  PARTIALLY_REFUNDED: 'Reembolsado en parte',
  REQUESTED: 'Solicitado',
  COMPLETED: 'Completado',
  FAILED: 'Falló',
  REJECTED: 'Rechazado',
  ACTIVE: 'Activa',
  PAST_DUE: 'Vencida',
  PENDING: 'Pendiente',
  IN_TRANSIT: 'En tránsito',
  NEEDS_RESPONSE: 'Espera respuesta',
  UNDER_REVIEW: 'En revisión',
  WON: 'Ganada',
  LOST: 'Perdida',
  ACCEPTED: 'Aceptada',
  CREDITCARD: 'Tarjeta de crédito',
  DEBITCARD: 'Tarjeta de débito',
  PIX: 'PIX',
  BOLETO: 'Boleto',
  PICPAY: 'PicPay',
  OXXO: 'OXXO',
  PAYNET: 'Paynet',
  SPEI: 'SPEI',
  BANK_TRANSFER: 'Transferencia bancaria',
  pending: 'Pendiente',
  delivered: 'Entregado',
  failed: 'Falló',
  skipped: 'No enviado (sin URL)',
  retry_scheduled: 'Reintento programado',
  'payment.status_changed': 'Cambió el estado del pago',
  'checkout.status_changed': 'Cambió el estado del checkout',
  'refund.status_changed': 'Cambió el estado del reembolso',
  'payout.status_changed': 'Cambió el estado de la dispersión',
  'subscription_charge.status_changed': 'Cambió el estado del cobro de la suscripción',
  'dispute.status_changed': 'Cambió el estado de la disputa',
};

const WORDS: Readonly<Record<Language, Words>> = { 'pt-BR': pt, en, es };

/**
 * A code in the reader's words, or the code itself when it has none.
 * @example label('pt-BR', 'PAID') // 'Pago'
 */
export function label(language: Language, code: string | null | undefined): string {
  if (code === null || code === undefined || code === '') return '—';
  return WORDS[language][code] ?? code;
}

/** Every code with words: the test checks each language has all of English's. */
export const LABELLED_CODES: readonly string[] = Object.keys(en);
export const LABEL_WORDS = WORDS;
