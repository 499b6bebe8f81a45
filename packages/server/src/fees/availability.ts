import { Type, type Static } from 'typebox';
import { BoundedMap } from '../lib/bounded-map';
import { applyPpm } from '../lib/money';
import { addBusinessDays, addDays, localDate, localEpochDay, nextBusinessDay, type CalendarCountry, type IsoDate } from '../rails/calendar';

/**
 * When captured money becomes the merchant's to settle: the availability schedule, as data, and the function
 * that applies it to one capture. Pure: no database, no clock (the capture instant is an argument).
 *
 * Every delay is counted in the bank calendar of the method's country (rails/calendar), from the calendar
 * date of the capture in that country's banking clock (Brasília for Brazil, Mexico City for Mexico):
 * - `{ business_days: n }` (D+n): the n-th business day after the capture date. D+0 is the capture date when
 *   it is a business day, otherwise the next business day; so a capture on a Saturday is available on Monday
 *   with D+0 and D+1 alike, and on Tuesday with D+2.
 * - `{ days_per_installment: d }` (card receivables): a plan of n installments settles in n parts, part k
 *   (1..n) on the capture date plus k × d calendar days, rolled forward to a business day. Without
 *   installments that is one part after d days.
 * A rolling reserve (`reserve_ppm` for `reserve_days`) holds a share of each part's net amount back as a
 * part of its own, released `reserve_days` calendar days after the part it comes from becomes available.
 * docs/balance-and-settlements.md explains the schedule with examples.
 */

/** The methods with a delay in the schedule (payments/methods.ts, PAYMENT_METHODS). */
export const AVAILABILITY_METHODS = ['PIX', 'CREDITCARD', 'DEBITCARD', 'BOLETO', 'PICPAY', 'OXXO', 'PAYNET', 'SPEI'] as const;
export type AvailabilityMethod = (typeof AVAILABILITY_METHODS)[number];

/**
 * The bank calendar each method's delays are counted in: the country where it is paid. This repeats
 * METHOD_MARKET of payments/methods.ts, a layer above fees; a test keeps the two equal.
 */
export const AVAILABILITY_COUNTRY: Readonly<Record<AvailabilityMethod, CalendarCountry>> = {
  PIX: 'BR',
  CREDITCARD: 'BR',
  DEBITCARD: 'BR',
  BOLETO: 'BR',
  PICPAY: 'BR',
  OXXO: 'MX',
  PAYNET: 'MX',
  SPEI: 'MX',
};

/** The most installments a capture may be split into (payments accept up to 12 today). */
export const MAX_AVAILABILITY_INSTALLMENTS = 99;

export const BusinessDaysDelaySchema = Type.Object(
  { business_days: Type.Integer({ minimum: 0, maximum: 60, description: 'D+n: business days of the method’s country after the capture date (0: that day, or the next business day)' }) },
  { additionalProperties: false },
);

export const InstallmentDelaySchema = Type.Object(
  { days_per_installment: Type.Integer({ minimum: 1, maximum: 90, description: 'calendar days per installment: part k of n is available k × this after the capture date, rolled to a business day' }) },
  { additionalProperties: false },
);

export const AvailabilityScheduleSchema = Type.Object(
  {
    methods: Type.Optional(
      Type.Object(
        {
          CREDITCARD: Type.Optional(Type.Union([InstallmentDelaySchema, BusinessDaysDelaySchema])),
          DEBITCARD: Type.Optional(BusinessDaysDelaySchema),
          PIX: Type.Optional(BusinessDaysDelaySchema),
          PICPAY: Type.Optional(BusinessDaysDelaySchema),
          BOLETO: Type.Optional(BusinessDaysDelaySchema),
          OXXO: Type.Optional(BusinessDaysDelaySchema),
          PAYNET: Type.Optional(BusinessDaysDelaySchema),
          SPEI: Type.Optional(BusinessDaysDelaySchema),
        },
        { additionalProperties: false, description: 'a delay per method; a method left out takes the default' },
      ),
    ),
    reserve_ppm: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'rolling reserve: parts per million of each part’s net amount held back (100000 = 10%)' })),
    reserve_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 365, default: 0, description: 'calendar days the reserve is held after its part becomes available, rolled to a business day' })),
  },
  { additionalProperties: false },
);

export type BusinessDaysDelay = Static<typeof BusinessDaysDelaySchema>;
export type InstallmentDelay = Static<typeof InstallmentDelaySchema>;
export type AvailabilityDelay = BusinessDaysDelay | InstallmentDelay;
export type AvailabilitySchedule = Static<typeof AvailabilityScheduleSchema>;

/** A schedule with every method and the reserve filled in. */
export interface EffectiveAvailability {
  readonly methods: { readonly CREDITCARD: AvailabilityDelay } & Readonly<Record<Exclude<AvailabilityMethod, 'CREDITCARD'>, BusinessDaysDelay>>;
  readonly reserve_ppm: number;
  readonly reserve_days: number;
}

/**
 * What a merchant starts with; an operator overrides any of it per merchant. The delays are what the Brazilian
 * and Mexican acquirers and PSPs commonly pay on, for a merchant without anticipation of receivables:
 * - CREDITCARD, 30 days per installment: Brazilian card receivables settle each installment 30 days after the
 *   previous one (D+30, D+60, ... for a plan of n), and an unsplit payment at D+30.
 * - DEBITCARD, D+1: debit is settled by the card schemes on the next business day.
 * - PIX, D+0: a Pix credit is final and settles in seconds, at any hour, so the money is the merchant's on the
 *   capture date (the next business day when captured on a weekend or holiday, when settlements go out).
 * - PICPAY, D+0: a PicPay payment is a transfer from the customer's wallet, final when it is captured, as a Pix
 *   is. Merchants whose PicPay contract releases money later get an override.
 * - BOLETO, D+1: Colibri captures a boleto on its compensation (checkout/boleto-term.ts: one business day after
 *   the customer pays), and the bank credits the collected amount the business day after compensation.
 * - OXXO and PAYNET, D+2 in Mexican business days: cash paid at a store counter reaches the collector through
 *   the chain's own settlement, two business days later.
 * - SPEI, D+2 in Mexican business days: SPEI transfers settle within seconds, but the aggregators that collect
 *   them for merchants pay out on the same cycle as their cash methods; a merchant with a direct account gets
 *   an override down to D+0.
 * - No rolling reserve.
 */
export const DEFAULT_AVAILABILITY: EffectiveAvailability = {
  methods: {
    CREDITCARD: { days_per_installment: 30 },
    DEBITCARD: { business_days: 1 },
    PIX: { business_days: 0 },
    PICPAY: { business_days: 0 },
    BOLETO: { business_days: 1 },
    OXXO: { business_days: 2 },
    PAYNET: { business_days: 2 },
    SPEI: { business_days: 2 },
  },
  reserve_ppm: 0,
  reserve_days: 0,
};

/**
 * A schedule with the defaults filled in where it leaves something out (what an operator's override means:
 * the methods it names, the defaults for the others).
 * @example effectiveAvailability({ methods: { PIX: { business_days: 1 } } }).methods.DEBITCARD // { business_days: 1 }
 */
export function effectiveAvailability(schedule: AvailabilitySchedule): EffectiveAvailability {
  // A loop, not Object.fromEntries: this runs for every capture settled (2.2 against 0.5 to 0.7 µs, measured 2026-11-29).
  const methods: Partial<Record<AvailabilityMethod, AvailabilityDelay>> = {};
  for (const method of AVAILABILITY_METHODS) methods[method] = schedule.methods?.[method] ?? DEFAULT_AVAILABILITY.methods[method];
  return {
    methods: methods as EffectiveAvailability['methods'],
    reserve_ppm: schedule.reserve_ppm ?? DEFAULT_AVAILABILITY.reserve_ppm,
    reserve_days: schedule.reserve_days ?? DEFAULT_AVAILABILITY.reserve_days,
  };
}

/** One capture to schedule: its method, installments (0 or 1: none), capture instant and amounts. */
export interface AvailabilityInput {
  readonly method: AvailabilityMethod;
  readonly installments: number;
  readonly paidAt: Date;
  readonly grossMinor: bigint;
  readonly feeMinor: bigint;
  readonly netMinor: bigint;
}

/** A share of a capture that becomes available on one date. */
export interface AvailabilityPart {
  readonly availableOn: IsoDate;
  /** 1..n: the installment the part (or the reserve held from it) belongs to; 1 without installments. */
  readonly installment: number;
  readonly grossMinor: bigint;
  readonly feeMinor: bigint;
  readonly netMinor: bigint;
  /** True for the rolling reserve held back from the installment's part, released later. */
  readonly reserve: boolean;
}

/**
 * Splits a capture into the parts that become available, on which dates. The parts' gross, fee and net amounts
 * add up exactly to the capture's:
 * - with `days_per_installment`, a plan of n installments gives n parts. The gross and the fee are each divided
 *   by n in whole minor units, the remainder on the first part (10.00 in 3: 3.34, 3.33, 3.33), and each part's
 *   net is its gross less its fee, so that every part is consistent on its own. When the capture's net is not
 *   its gross less its fee (the caller's figures say so), the difference is divided the same way and added to
 *   the parts' net. Any other delay gives one part, installments or not.
 * - with a rolling reserve (`reserve_ppm` and `reserve_days` both above 0), each part whose net amount is
 *   positive has `reserve_ppm` of its net (rounded half-up) moved into a reserve part: gross and net of the
 *   reserve, no fee, available `reserve_days` calendar days after the part's own date, rolled forward to a
 *   business day. Counting from the part's date, not the capture's, holds every installment's reserve for the
 *   same time after that installment is paid out (counted from the capture, an installment due at D+330
 *   would have its reserve released before the installment itself). The part keeps its fee and gives up the
 *   reserved amount from its gross and net, so gross − fee = net holds for each part when it holds for the
 *   capture. A reserve that rounds to 0 makes no part.
 * Parts come in installment order, each followed by its reserve part. Dates are in the bank calendar of the
 * method's country (AVAILABILITY_COUNTRY), from the capture date in that country's banking clock.
 *
 * @example
 * availabilityParts(DEFAULT_AVAILABILITY, { method: 'CREDITCARD', installments: 3, paidAt: new Date('2025-01-10T15:00:00Z'), grossMinor: 1000n, feeMinor: 40n, netMinor: 960n })
 * // [{ availableOn: '2025-02-10', installment: 1, grossMinor: 334n, feeMinor: 14n, netMinor: 320n, reserve: false },
 * //  { availableOn: '2025-03-11', installment: 2, grossMinor: 333n, feeMinor: 13n, netMinor: 320n, reserve: false },
 * //  { availableOn: '2025-04-10', installment: 3, grossMinor: 333n, feeMinor: 13n, netMinor: 320n, reserve: false }]
 */
export function availabilityParts(schedule: AvailabilitySchedule, input: AvailabilityInput): AvailabilityPart[] {
  const { method, paidAt } = input;
  if (!(AVAILABILITY_METHODS as readonly string[]).includes(method)) throw new RangeError(`No availability schedule for method ${JSON.stringify(method)}`);
  checkedInteger(input.installments, 0, MAX_AVAILABILITY_INSTALLMENTS, 'installments');
  const effective = effectiveAvailability(schedule);
  const reservePpm = checkedInteger(effective.reserve_ppm, 0, 1_000_000, 'reserve_ppm');
  const reserveDays = checkedInteger(effective.reserve_days, 0, 365, 'reserve_days');
  const { dates, releases } = partDates(effective.methods[method], input.installments, reserveDays, paidAt, AVAILABILITY_COUNTRY[method]);

  const gross = splitEvenly(input.grossMinor, dates.length);
  const fee = splitEvenly(input.feeMinor, dates.length);
  const difference = splitEvenly(input.netMinor - (input.grossMinor - input.feeMinor), dates.length);
  const net = gross.map((g, i) => g - fee[i]! + difference[i]!);
  const parts: AvailabilityPart[] = [];
  dates.forEach((availableOn, i) => {
    const held = reservePpm > 0 && reserveDays > 0 && net[i]! > 0n ? applyPpm(net[i]!, BigInt(reservePpm)) : 0n;
    const installment = i + 1;
    parts.push({ availableOn, installment, grossMinor: gross[i]! - held, feeMinor: fee[i]!, netMinor: net[i]! - held, reserve: false });
    if (held > 0n) {
      parts.push({ availableOn: releases[i]!, installment, grossMinor: held, feeMinor: 0n, netMinor: held, reserve: true });
    }
  });
  return parts;
}

/**
 * The dates of a capture's parts (see availabilityParts) and, with a reserve, of each part's reserve release,
 * remembered by capture day and schedule: every capture of one day under one schedule has the same dates, and
 * working them out in the bank calendar took most of a card capture's settlement time in the job worker
 * (14 µs a capture, 2026-11-29; docs/performance.md, "eighth session"). The lists are shared: read only.
 */
function partDates(delay: AvailabilityDelay, installments: number, reserveDays: number, paidAt: Date, country: CalendarCountry): { dates: readonly IsoDate[]; releases: readonly IsoDate[] } {
  const rule = 'days_per_installment' in delay ? `every ${delay.days_per_installment}` : `after ${delay.business_days}`;
  const key = `${country} ${localEpochDay(paidAt, country)} ${rule} ${installments} ${reserveDays}`;
  const known = PART_DATES.get(key);
  if (known) return known;
  const paidOn = localDate(paidAt, country);
  let dates: IsoDate[];
  if ('days_per_installment' in delay) {
    const days = checkedInteger(delay.days_per_installment, 1, 90, 'days_per_installment');
    const count = Math.max(1, installments);
    dates = Array.from({ length: count }, (_, i) => nextBusinessDay(addDays(paidOn, days * (i + 1)), country));
  } else {
    const businessDays = checkedInteger(delay.business_days, 0, 60, 'business_days');
    dates = [businessDays === 0 ? nextBusinessDay(paidOn, country) : addBusinessDays(paidOn, businessDays, country)];
  }
  const releases = reserveDays > 0 ? dates.map((date) => nextBusinessDay(addDays(date, reserveDays), country)) : [];
  PART_DATES.set(key, { dates, releases });
  return { dates, releases };
}

const PART_DATES = new BoundedMap<string, { dates: readonly IsoDate[]; releases: readonly IsoDate[] }>(1024);

/**
 * Divides an amount into `count` whole parts that add up to it exactly, the remainder on the first part.
 * @example splitEvenly(1000n, 3) // [334n, 333n, 333n]
 */
export function splitEvenly(totalMinor: bigint, count: number): bigint[] {
  checkedInteger(count, 1, MAX_AVAILABILITY_INSTALLMENTS, 'count');
  const n = BigInt(count);
  // BigInt division truncates toward zero, so for a negative total the remainder is negative too and the
  // first part still takes it: base × n + remainder = total whatever the sign.
  const base = totalMinor / n;
  const remainder = totalMinor - base * n;
  const parts = [base + remainder];
  for (let i = 1; i < count; i += 1) parts.push(base);
  return parts;
}

function checkedInteger(value: number, min: number, max: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  return value;
}
