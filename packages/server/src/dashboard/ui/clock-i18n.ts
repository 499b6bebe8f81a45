import type { Language } from './i18n';

/**
 * Words about time and the callbacks' details, in English, Brazilian Portuguese and Spanish, apart from
 * i18n.ts so each file stays readable. The rule they say (docs/dashboard.md, "Times and clocks"): times
 * of money (payments, refunds, disputes, the balance, settlements, checkouts, subscriptions, payouts) are
 * on the merchant clock, which the sandbox can advance; times of callbacks are real time.
 */
const en = {
  timeZone: 'Time zone',
  zoneSaved: (zone: string) => `Times now show in ${zone}.`,
  merchantClock: 'merchant clock',
  sandboxClock: 'sandbox clock',
  realTime: 'real time',
  clockNote: (clock: string, zone: string) => `Times: ${clock}, in ${zone}.`,
  sandboxRule: 'The sandbox clock is this merchant’s clock, which the sandbox controls can advance; payments, refunds, disputes and the balance follow it. Callbacks are sent in real time.',
  realNow: 'Real time',
  delivery: 'Delivery',
  lastResponse: 'Last response',
  nextAttempt: 'Next attempt',
  deliveredAt: 'Delivered',
  failedAt: 'Failed',
  payload: 'Payload (the callback body)',
  noDeliveries: 'No notification URL: nothing was sent.',
  latency: 'Time taken',
  manual: 'resent by hand',
  eventTime: 'Recorded',
};

export type ClockStrings = typeof en;

const pt: ClockStrings = {
  timeZone: 'Fuso horário',
  zoneSaved: (zone: string) => `Os horários agora aparecem em ${zone}.`,
  merchantClock: 'relógio do lojista',
  sandboxClock: 'relógio do sandbox',
  realTime: 'hora real',
  clockNote: (clock: string, zone: string) => `Horários: ${clock}, em ${zone}.`,
  sandboxRule: 'O relógio do sandbox é o relógio deste lojista, que os controles do sandbox podem adiantar; pagamentos, reembolsos, contestações e o saldo seguem esse relógio. Os callbacks são enviados em hora real.',
  realNow: 'Hora real',
  delivery: 'Entrega',
  lastResponse: 'Última resposta',
  nextAttempt: 'Próxima tentativa',
  deliveredAt: 'Entregue em',
  failedAt: 'Falhou em',
  payload: 'Payload (o corpo do callback)',
  noDeliveries: 'Sem URL de notificação: nada foi enviado.',
  latency: 'Duração',
  manual: 'reenviado manualmente',
  eventTime: 'Registrado em',
};

const es: ClockStrings = {
  timeZone: 'Zona horaria',
  zoneSaved: (zone: string) => `Las horas ahora se muestran en ${zone}.`,
  merchantClock: 'reloj del comercio',
  sandboxClock: 'reloj del sandbox',
  realTime: 'hora real',
  clockNote: (clock: string, zone: string) => `Horas: ${clock}, en ${zone}.`,
  sandboxRule: 'El reloj del sandbox es el reloj de este comercio, que los controles del sandbox pueden adelantar; pagos, reembolsos, disputas y el saldo lo siguen. Los callbacks se envían en hora real.',
  realNow: 'Hora real',
  delivery: 'Entrega',
  lastResponse: 'Última respuesta',
  nextAttempt: 'Próximo intento',
  deliveredAt: 'Entregado',
  failedAt: 'Falló',
  payload: 'Payload (el cuerpo del callback)',
  noDeliveries: 'Sin URL de notificación: no se envió nada.',
  latency: 'Duración',
  manual: 'reenviado a mano',
  eventTime: 'Registrado',
};

export const CLOCK_STRINGS: Readonly<Record<Language, ClockStrings>> = { 'pt-BR': pt, en, es };

/** Zones offered in the picker: Colibri's markets, UTC, and the browser's own when it is another. */
export const TIME_ZONES = [
  'America/Sao_Paulo',
  'America/Manaus',
  'America/Fortaleza',
  'America/Rio_Branco',
  'America/Noronha',
  'America/Mexico_City',
  'America/Bogota',
  'America/Lima',
  'America/Santiago',
  'UTC',
] as const;

/**
 * A zone as the header says it: its name and its offset now ("America/Sao_Paulo (GMT-3)").
 * @example zoneName('en', 'America/Sao_Paulo') // 'America/Sao_Paulo (GMT-3)'
 */
export function zoneName(language: Language, zone: string): string {
  try {
    const offset = new Intl.DateTimeFormat(language, { timeZone: zone, timeZoneName: 'shortOffset' }).formatToParts(new Date()).find((p) => p.type === 'timeZoneName')?.value;
    return offset ? `${zone} (${offset})` : zone;
  } catch {
    return zone;
  }
}
