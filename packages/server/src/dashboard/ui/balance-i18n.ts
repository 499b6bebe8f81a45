import type { BalanceType } from '../../ledger/ledger';
import type { Language } from './i18n';

/**
 * The balance page's words in English, Brazilian Portuguese and Spanish, apart from i18n.ts so each file
 * stays readable. The balance transaction types are said in the reader's language; the filter sends their
 * codes.
 */

const en = {
  available: 'Available',
  pending: 'Pending',
  reserved: 'Reserved',
  figuresHelp: 'Available can be settled to your bank account now; pending becomes available on its day; reserved is held back (a rolling reserve until its day, and what open disputes hold).',
  noBalance: 'No balance yet: it starts with the first captured payment.',
  upcoming: 'Upcoming availability',
  upcomingHelp: (days: number) => `Pending and reserved money by the day it becomes available, over the next ${days} days.`,
  perDay: (currency: string) => `Becoming available per day (${currency})`,
  nothingUpcoming: (days: number) => `Nothing becomes available in the next ${days} days.`,
  after: (day: string) => `After ${day}`,
  held: 'Held by open disputes, until they are decided',
  transactions: 'Balance transactions',
  noTransactions: 'No balance transactions.',
  gross: 'Gross',
  net: 'Net',
  availableOn: 'Available on',
  source: 'Source',
  reservedMark: 'reserved',
  types: {
    PAYMENT: 'Payment',
    REFUND: 'Refund',
    FEE: 'Fee',
    DISPUTE: 'Dispute',
    DISPUTE_REVERSAL: 'Dispute reversal',
    PAYOUT: 'Payout',
    SETTLEMENT: 'Settlement',
    ADJUSTMENT: 'Adjustment',
  } satisfies Record<BalanceType, string>,
};

export type BalanceStrings = typeof en;

const pt: BalanceStrings = {
  available: 'Disponível',
  pending: 'A liberar',
  reserved: 'Reservado',
  figuresHelp: 'O disponível pode ser transferido para sua conta bancária agora; o valor a liberar fica disponível no seu dia; o reservado fica retido (a reserva contínua até o seu dia, e o que as contestações abertas retêm).',
  noBalance: 'Ainda não há saldo: ele começa com o primeiro pagamento capturado.',
  upcoming: 'Próximas liberações',
  upcomingHelp: (days: number) => `Valores a liberar e reservados pelo dia em que ficam disponíveis, nos próximos ${days} dias.`,
  perDay: (currency: string) => `Liberações por dia (${currency})`,
  nothingUpcoming: (days: number) => `Nada fica disponível nos próximos ${days} dias.`,
  after: (day: string) => `Depois de ${day}`,
  held: 'Retido por contestações abertas, até a decisão',
  transactions: 'Movimentações do saldo',
  noTransactions: 'Nenhuma movimentação do saldo.',
  gross: 'Bruto',
  net: 'Líquido',
  availableOn: 'Disponível em',
  source: 'Origem',
  reservedMark: 'reservado',
  types: {
    PAYMENT: 'Pagamento',
    REFUND: 'Reembolso',
    FEE: 'Tarifa',
    DISPUTE: 'Contestação',
    DISPUTE_REVERSAL: 'Estorno de contestação',
    PAYOUT: 'Repasse',
    SETTLEMENT: 'Liquidação',
    ADJUSTMENT: 'Ajuste',
  },
};

const es: BalanceStrings = {
  available: 'Disponible',
  pending: 'Por liberar',
  reserved: 'Reservado',
  figuresHelp: 'Lo disponible se puede transferir a su cuenta bancaria ahora; lo que está por liberar queda disponible en su día; lo reservado queda retenido (la reserva continua hasta su día, y lo que retienen las disputas abiertas).',
  noBalance: 'Todavía no hay saldo: empieza con el primer pago capturado.',
  upcoming: 'Próximas liberaciones',
  upcomingHelp: (days: number) => `Montos por liberar y reservados según el día en que quedan disponibles, en los próximos ${days} días.`,
  perDay: (currency: string) => `Liberaciones por día (${currency})`,
  nothingUpcoming: (days: number) => `Nada queda disponible en los próximos ${days} días.`,
  after: (day: string) => `Después del ${day}`,
  held: 'Retenido por disputas abiertas, hasta su resolución',
  transactions: 'Movimientos del saldo',
  noTransactions: 'Ningún movimiento del saldo.',
  gross: 'Bruto',
  net: 'Neto',
  availableOn: 'Disponible el',
  source: 'Origen',
  reservedMark: 'reservado',
  types: {
    PAYMENT: 'Pago',
    REFUND: 'Reembolso',
    FEE: 'Comisión',
    DISPUTE: 'Disputa',
    DISPUTE_REVERSAL: 'Reversión de disputa',
    PAYOUT: 'Dispersión',
    SETTLEMENT: 'Liquidación',
    ADJUSTMENT: 'Ajuste',
  },
};

export const BALANCE_STRINGS: Record<Language, BalanceStrings> = { 'pt-BR': pt, en, es };

/** A `YYYY-MM-DD` day in the reader's short date format (the day as written, whatever the browser's zone). */
export function formatDay(language: Language, day: string | null | undefined): string {
  if (!day) return '—';
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return new Intl.DateTimeFormat(language, { dateStyle: 'short', timeZone: 'UTC' }).format(date);
}
