import Ajv from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPpm } from '../lib/money';
import { METHOD_MARKET, PAYMENT_METHODS } from '../payments/methods';
import { isBusinessDay, localDate } from '../rails/calendar';
import {
  AVAILABILITY_COUNTRY,
  AVAILABILITY_METHODS,
  AvailabilityScheduleSchema,
  DEFAULT_AVAILABILITY,
  availabilityParts,
  effectiveAvailability,
  splitEvenly,
  type AvailabilityInput,
  type AvailabilityMethod,
  type AvailabilityPart,
  type AvailabilitySchedule,
} from './availability';

/** A capture of 100.00 with a 3.76 fee, on the given method and instant. */
function capture(method: AvailabilityMethod, paidAt: string, installments = 1): AvailabilityInput {
  return { method, installments, paidAt: new Date(paidAt), grossMinor: 10_000n, feeMinor: 376n, netMinor: 9_624n };
}

/** The date of the one part a capture makes (and a check that it makes only one). */
function onlyDate(schedule: AvailabilitySchedule, input: AvailabilityInput): string {
  const parts = availabilityParts(schedule, input);
  expect(parts).toHaveLength(1);
  return parts[0]!.availableOn;
}

function sums(parts: readonly AvailabilityPart[]): { gross: bigint; fee: bigint; net: bigint } {
  return parts.reduce((t, p) => ({ gross: t.gross + p.grossMinor, fee: t.fee + p.feeMinor, net: t.net + p.netMinor }), { gross: 0n, fee: 0n, net: 0n });
}

// Instants are written at 15:00 UTC (12:00 in Brasília, 09:00 in Mexico City) unless the test is about the clock.
describe('availability dates in Brazilian business days', () => {
  it('makes a PIX available on its capture date, or the next business day', () => {
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('PIX', '2025-06-11T15:00:00Z'))).toBe('2025-06-11'); // Wednesday
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('PIX', '2025-06-14T15:00:00Z'))).toBe('2025-06-16'); // Saturday → Monday
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('PICPAY', '2025-06-15T15:00:00Z'))).toBe('2025-06-16'); // Sunday → Monday
  });

  it('counts a debit card D+1 over the weekend, a Saturday capture included', () => {
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('DEBITCARD', '2025-06-11T15:00:00Z'))).toBe('2025-06-12');
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('DEBITCARD', '2025-06-13T15:00:00Z'))).toBe('2025-06-16'); // Friday → Monday
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('DEBITCARD', '2025-06-14T15:00:00Z'))).toBe('2025-06-16'); // Saturday → Monday
  });

  it('skips Carnival Monday and Tuesday', () => {
    // Friday 13 February 2026: the weekend, then Carnival on 16 and 17 February; Ash Wednesday counts.
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('DEBITCARD', '2026-02-13T15:00:00Z'))).toBe('2026-02-18');
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('PIX', '2026-02-16T15:00:00Z'))).toBe('2026-02-18');
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('BOLETO', '2026-02-18T15:00:00Z'))).toBe('2026-02-19');
  });

  it('skips Good Friday and Tiradentes', () => {
    // A boleto captured (compensated) on Holy Thursday 2025: Good Friday, the weekend, Tiradentes on Monday.
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('BOLETO', '2025-04-17T15:00:00Z'))).toBe('2025-04-22');
  });

  it('skips 20 November from 2024, not in 2023', () => {
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('DEBITCARD', '2025-11-19T15:00:00Z'))).toBe('2025-11-21');
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('DEBITCARD', '2023-11-17T15:00:00Z'))).toBe('2023-11-20');
  });

  it('reads the capture date on Brasília time: late evening is the previous day there', () => {
    // 02:00 UTC on Saturday 1 March 2025 is 23:00 on Friday 28 February in Brasília, before the Carnival weekend.
    const lateFriday = '2025-03-01T02:00:00Z';
    expect(localDate(new Date(lateFriday), 'BR')).toBe('2025-02-28');
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('PIX', lateFriday))).toBe('2025-02-28');
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('DEBITCARD', lateFriday))).toBe('2025-03-05');
    // Three hours later it is Saturday in Brasília too, and a PIX waits for Ash Wednesday.
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('PIX', '2025-03-01T03:00:00Z'))).toBe('2025-03-05');
  });
});

describe('availability dates in Mexican business days', () => {
  it('counts OXXO, PAYNET and SPEI D+2 over 16 September', () => {
    // Friday 12 September 2025: Monday 15 is the first business day, Tuesday 16 is Independence Day.
    for (const method of ['OXXO', 'PAYNET', 'SPEI'] as const) {
      expect(onlyDate(DEFAULT_AVAILABILITY, capture(method, '2025-09-12T15:00:00Z')), method).toBe('2025-09-17');
    }
  });

  it('skips 12 December', () => {
    // Thursday 11 December 2025: Friday 12 is the Virgen de Guadalupe, then the weekend.
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('SPEI', '2025-12-11T15:00:00Z'))).toBe('2025-12-16');
  });

  it('skips Holy Thursday and Good Friday', () => {
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('OXXO', '2025-04-16T15:00:00Z'))).toBe('2025-04-22');
    // Brazil works on Holy Thursday, Mexico does not.
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('PIX', '2025-04-17T15:00:00Z'))).toBe('2025-04-17');
    expect(onlyDate({ methods: { SPEI: { business_days: 0 } } }, capture('SPEI', '2025-04-17T15:00:00Z'))).toBe('2025-04-21');
  });

  it('counts Mexican methods in the Mexican calendar, not the Brazilian one', () => {
    // Carnival Monday 2026 is an ordinary Monday in Mexico.
    expect(onlyDate(DEFAULT_AVAILABILITY, capture('OXXO', '2026-02-16T15:00:00Z'))).toBe('2026-02-18');
    expect(onlyDate({ methods: { PIX: { business_days: 2 } } }, capture('PIX', '2026-02-16T15:00:00Z'))).toBe('2026-02-19');
  });

  it('reads the capture date on Mexico City time (UTC−6)', () => {
    // 05:00 UTC on Saturday 20 September 2025 is 23:00 on Friday 19 September in Mexico City.
    const schedule: AvailabilitySchedule = { methods: { SPEI: { business_days: 0 } } };
    expect(onlyDate(schedule, capture('SPEI', '2025-09-20T05:00:00Z'))).toBe('2025-09-19');
    expect(onlyDate(schedule, capture('SPEI', '2025-09-20T06:00:00Z'))).toBe('2025-09-22');
  });
});

describe('credit card installments', () => {
  it('makes one part 30 days on, rolled to a business day, without installments', () => {
    // Tuesday 21 October 2025 + 30 days is Thursday 20 November, a holiday.
    for (const installments of [0, 1]) {
      expect(availabilityParts(DEFAULT_AVAILABILITY, capture('CREDITCARD', '2025-10-21T15:00:00Z', installments))).toEqual([
        { availableOn: '2025-11-21', installment: 1, grossMinor: 10_000n, feeMinor: 376n, netMinor: 9_624n, reserve: false },
      ]);
    }
  });

  it('splits 3 installments into parts 30 days apart, the remainder on the first', () => {
    const parts = availabilityParts(DEFAULT_AVAILABILITY, { method: 'CREDITCARD', installments: 3, paidAt: new Date('2025-01-10T15:00:00Z'), grossMinor: 1_000n, feeMinor: 40n, netMinor: 960n });
    expect(parts).toEqual([
      { availableOn: '2025-02-10', installment: 1, grossMinor: 334n, feeMinor: 14n, netMinor: 320n, reserve: false }, // 9 Feb is a Sunday
      { availableOn: '2025-03-11', installment: 2, grossMinor: 333n, feeMinor: 13n, netMinor: 320n, reserve: false },
      { availableOn: '2025-04-10', installment: 3, grossMinor: 333n, feeMinor: 13n, netMinor: 320n, reserve: false },
    ]);
  });

  it('makes each part’s net its gross less its fee, and shares out a difference the capture carries', () => {
    const paidAt = new Date('2025-01-10T15:00:00Z');
    const tiny = availabilityParts(DEFAULT_AVAILABILITY, { method: 'CREDITCARD', installments: 3, paidAt, grossMinor: 10n, feeMinor: 2n, netMinor: 8n });
    expect(tiny.map((p) => [p.grossMinor, p.feeMinor, p.netMinor])).toEqual([
      [4n, 2n, 2n],
      [3n, 0n, 3n],
      [3n, 0n, 3n],
    ]);
    // A net 0.10 short of gross less fee: −0.10 in 3 is −0.04, −0.03, −0.03.
    const short = availabilityParts(DEFAULT_AVAILABILITY, { method: 'CREDITCARD', installments: 3, paidAt, grossMinor: 1_000n, feeMinor: 40n, netMinor: 950n });
    expect(short.map((p) => p.netMinor)).toEqual([316n, 317n, 317n]);
    expect(sums(short)).toEqual({ gross: 1_000n, fee: 40n, net: 950n });
  });

  it('splits 12 installments over a year, rolling each weekend date forward', () => {
    const parts = availabilityParts(DEFAULT_AVAILABILITY, { method: 'CREDITCARD', installments: 12, paidAt: new Date('2025-01-10T15:00:00Z'), grossMinor: 100_001n, feeMinor: 3_917n, netMinor: 96_084n });
    expect(parts.map((p) => p.availableOn)).toEqual([
      '2025-02-10', // 9 February, a Sunday
      '2025-03-11',
      '2025-04-10',
      '2025-05-12', // 10 May, a Saturday
      '2025-06-09',
      '2025-07-09',
      '2025-08-08',
      '2025-09-08', // 7 September, a Sunday and Independence Day
      '2025-10-07',
      '2025-11-06',
      '2025-12-08', // 6 December, a Saturday
      '2026-01-05',
    ]);
    expect(parts.map((p) => p.grossMinor)).toEqual([8_338n, ...Array(11).fill(8_333n)]);
    expect(parts.map((p) => p.feeMinor)).toEqual([331n, ...Array(11).fill(326n)]);
    expect(parts.map((p) => p.netMinor)).toEqual(Array(12).fill(8_007n));
    expect(sums(parts)).toEqual({ gross: 100_001n, fee: 3_917n, net: 96_084n });
    expect(parts.every((p) => !p.reserve)).toBe(true);
    expect(parts.map((p) => p.installment)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('pays a card at once on a business-day delay (anticipated receivables), installments or not', () => {
    const schedule: AvailabilitySchedule = { methods: { CREDITCARD: { business_days: 2 } } };
    expect(availabilityParts(schedule, capture('CREDITCARD', '2025-06-12T15:00:00Z', 6))).toEqual([
      { availableOn: '2025-06-16', installment: 1, grossMinor: 10_000n, feeMinor: 376n, netMinor: 9_624n, reserve: false },
    ]);
  });

  it('gives no installment parts to other methods', () => {
    expect(availabilityParts(DEFAULT_AVAILABILITY, capture('DEBITCARD', '2025-06-11T15:00:00Z', 3))).toHaveLength(1);
  });
});

describe('rolling reserve', () => {
  const reserve10For90: AvailabilitySchedule = { reserve_ppm: 100_000, reserve_days: 90 };

  it('holds a share of the net back as its own part, released reserve_days after the part, on a business day', () => {
    // Debit card captured Thursday 25 September 2025 → Friday 26 September; + 90 days is Christmas → 26 December.
    expect(availabilityParts(reserve10For90, capture('DEBITCARD', '2025-09-25T15:00:00Z'))).toEqual([
      { availableOn: '2025-09-26', installment: 1, grossMinor: 9_038n, feeMinor: 376n, netMinor: 8_662n, reserve: false },
      { availableOn: '2025-12-26', installment: 1, grossMinor: 962n, feeMinor: 0n, netMinor: 962n, reserve: true },
    ]);
  });

  it('holds from each installment, counted from that installment’s own date', () => {
    const schedule: AvailabilitySchedule = { reserve_ppm: 25_000, reserve_days: 30 };
    const parts = availabilityParts(schedule, { method: 'CREDITCARD', installments: 3, paidAt: new Date('2025-01-10T15:00:00Z'), grossMinor: 1_000n, feeMinor: 40n, netMinor: 960n });
    expect(parts).toEqual([
      { availableOn: '2025-02-10', installment: 1, grossMinor: 326n, feeMinor: 14n, netMinor: 312n, reserve: false },
      { availableOn: '2025-03-12', installment: 1, grossMinor: 8n, feeMinor: 0n, netMinor: 8n, reserve: true },
      { availableOn: '2025-03-11', installment: 2, grossMinor: 325n, feeMinor: 13n, netMinor: 312n, reserve: false },
      { availableOn: '2025-04-10', installment: 2, grossMinor: 8n, feeMinor: 0n, netMinor: 8n, reserve: true },
      { availableOn: '2025-04-10', installment: 3, grossMinor: 325n, feeMinor: 13n, netMinor: 312n, reserve: false },
      { availableOn: '2025-05-12', installment: 3, grossMinor: 8n, feeMinor: 0n, netMinor: 8n, reserve: true }, // 10 May, a Saturday
    ]);
    expect(sums(parts)).toEqual({ gross: 1_000n, fee: 40n, net: 960n });
  });

  it('rounds the reserve half-up and makes no part of a reserve that rounds to nothing', () => {
    const input = { method: 'PIX' as const, installments: 1, paidAt: new Date('2025-06-11T15:00:00Z'), feeMinor: 0n };
    const schedule: AvailabilitySchedule = { reserve_ppm: 25_000, reserve_days: 7 };
    // 2.5% of 0.20 is 0.005: half a cent, rounded up to one.
    expect(availabilityParts(schedule, { ...input, grossMinor: 20n, netMinor: 20n }).map((p) => p.netMinor)).toEqual([19n, 1n]);
    // 2.5% of 0.19 is 0.475 of a cent, rounded down to nothing: no reserve part.
    expect(availabilityParts(schedule, { ...input, grossMinor: 19n, netMinor: 19n })).toEqual([
      { availableOn: '2025-06-11', installment: 1, grossMinor: 19n, feeMinor: 0n, netMinor: 19n, reserve: false },
    ]);
  });

  it('holds nothing from a part with no positive net, nor without both a rate and a period', () => {
    const input = { method: 'PIX' as const, installments: 1, paidAt: new Date('2025-06-11T15:00:00Z') };
    expect(availabilityParts(reserve10For90, { ...input, grossMinor: 30n, feeMinor: 39n, netMinor: -9n })).toHaveLength(1);
    expect(availabilityParts(reserve10For90, { ...input, grossMinor: 0n, feeMinor: 0n, netMinor: 0n })).toHaveLength(1);
    expect(availabilityParts({ reserve_ppm: 100_000 }, capture('PIX', '2025-06-11T15:00:00Z'))).toHaveLength(1);
    expect(availabilityParts({ reserve_days: 90 }, capture('PIX', '2025-06-11T15:00:00Z'))).toHaveLength(1);
  });

  it('can hold the whole net', () => {
    const parts = availabilityParts({ reserve_ppm: 1_000_000, reserve_days: 1 }, capture('PIX', '2025-06-13T15:00:00Z'));
    expect(parts).toEqual([
      { availableOn: '2025-06-13', installment: 1, grossMinor: 376n, feeMinor: 376n, netMinor: 0n, reserve: false },
      { availableOn: '2025-06-16', installment: 1, grossMinor: 9_624n, feeMinor: 0n, netMinor: 9_624n, reserve: true },
    ]);
  });
});

describe('the schedule', () => {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false });
  const validate = ajv.compile(AvailabilityScheduleSchema);

  it('accepts the defaults, an empty override and a partial one', () => {
    expect(validate(DEFAULT_AVAILABILITY)).toBe(true);
    expect(validate({})).toBe(true);
    expect(validate({ methods: { PIX: { business_days: 1 }, CREDITCARD: { business_days: 2 } }, reserve_ppm: 50_000, reserve_days: 120 })).toBe(true);
  });

  it('refuses per-installment delays outside card methods, unknown keys and out-of-range figures', () => {
    expect(validate({ methods: { PIX: { days_per_installment: 30 } } })).toBe(false);
    expect(validate({ methods: { CREDITCARD: { days_per_installment: 30, business_days: 1 } } })).toBe(false);
    expect(validate({ methods: { BOLETO: { bussiness_days: 1 } } })).toBe(false);
    expect(validate({ methods: { CASH: { business_days: 1 } } })).toBe(false);
    expect(validate({ reserve_ppm: 1_000_001 })).toBe(false);
    expect(validate({ reserve_days: 366 })).toBe(false);
    expect(validate({ methods: { DEBITCARD: { business_days: -1 } } })).toBe(false);
    expect(validate({ methods: { CREDITCARD: { days_per_installment: 0 } } })).toBe(false);
    expect(validate({ reserve_ppm: 0.5 })).toBe(false);
  });

  it('fills what an override leaves out with the defaults', () => {
    const effective = effectiveAvailability({ methods: { PIX: { business_days: 1 } }, reserve_ppm: 50_000 });
    expect(effective.methods.PIX).toEqual({ business_days: 1 });
    expect(effective.methods.CREDITCARD).toEqual({ days_per_installment: 30 });
    expect(effective.methods.SPEI).toEqual({ business_days: 2 });
    expect(effective.reserve_ppm).toBe(50_000);
    expect(effective.reserve_days).toBe(0);
    expect(effectiveAvailability({})).toEqual(DEFAULT_AVAILABILITY);
  });

  it('has the documented defaults', () => {
    expect(DEFAULT_AVAILABILITY.methods).toEqual({
      CREDITCARD: { days_per_installment: 30 },
      DEBITCARD: { business_days: 1 },
      PIX: { business_days: 0 },
      PICPAY: { business_days: 0 },
      BOLETO: { business_days: 1 },
      OXXO: { business_days: 2 },
      PAYNET: { business_days: 2 },
      SPEI: { business_days: 2 },
    });
    expect([DEFAULT_AVAILABILITY.reserve_ppm, DEFAULT_AVAILABILITY.reserve_days]).toEqual([0, 0]);
  });

  it('covers every payment method, each in the calendar of the country where it is paid', () => {
    expect([...AVAILABILITY_METHODS].sort()).toEqual([...PAYMENT_METHODS].sort());
    for (const method of PAYMENT_METHODS) expect(AVAILABILITY_COUNTRY[method], method).toBe(METHOD_MARKET[method].country);
  });

  it('refuses an unknown method, installments out of range and an invalid instant', () => {
    expect(() => availabilityParts(DEFAULT_AVAILABILITY, capture('CASH' as never, '2025-06-11T15:00:00Z'))).toThrow(RangeError);
    expect(() => availabilityParts(DEFAULT_AVAILABILITY, capture('CREDITCARD', '2025-06-11T15:00:00Z', 100))).toThrow(RangeError);
    expect(() => availabilityParts(DEFAULT_AVAILABILITY, capture('CREDITCARD', '2025-06-11T15:00:00Z', -1))).toThrow(RangeError);
    expect(() => availabilityParts(DEFAULT_AVAILABILITY, capture('CREDITCARD', '2025-06-11T15:00:00Z', 1.5))).toThrow(RangeError);
    expect(() => availabilityParts(DEFAULT_AVAILABILITY, capture('PIX', 'not a date'))).toThrow(RangeError);
    expect(() => availabilityParts({ reserve_days: 400 }, capture('PIX', '2025-06-11T15:00:00Z'))).toThrow(RangeError);
  });
});

describe('splitEvenly', () => {
  it('puts the remainder on the first part, for negative amounts too', () => {
    expect(splitEvenly(1_000n, 3)).toEqual([334n, 333n, 333n]);
    expect(splitEvenly(2n, 3)).toEqual([2n, 0n, 0n]);
    expect(splitEvenly(-1_000n, 3)).toEqual([-334n, -333n, -333n]);
    expect(splitEvenly(7n, 1)).toEqual([7n]);
    expect(() => splitEvenly(7n, 0)).toThrow(RangeError);
  });
});

describe('availabilityParts (property)', () => {
  const delay = fc.oneof(
    fc.record({ business_days: fc.integer({ min: 0, max: 60 }) }),
    fc.record({ days_per_installment: fc.integer({ min: 1, max: 90 }) }),
  );
  const schedule: fc.Arbitrary<AvailabilitySchedule> = fc.record(
    {
      methods: fc.record({ CREDITCARD: delay, PIX: fc.record({ business_days: fc.integer({ min: 0, max: 60 }) }) }, { requiredKeys: [] }),
      reserve_ppm: fc.integer({ min: 0, max: 1_000_000 }),
      reserve_days: fc.integer({ min: 0, max: 365 }),
    },
    { requiredKeys: [] },
  );
  const amount = fc.bigInt({ min: -1_000_000_000n, max: 1_000_000_000_000n });
  const input = fc.record({
    method: fc.constantFrom(...AVAILABILITY_METHODS),
    installments: fc.integer({ min: 0, max: 24 }),
    // 2024-01-01 to 2030-12-31.
    paidAt: fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2030, 11, 31) }).map((ms) => new Date(ms)),
    grossMinor: amount,
    feeMinor: amount,
    netMinor: amount,
  });

  it('adds up exactly, on business days, never before the capture date', () => {
    fc.assert(
      fc.property(schedule, input, (s, c) => {
        const parts = availabilityParts(s, c);
        expect(sums(parts)).toEqual({ gross: c.grossMinor, fee: c.feeMinor, net: c.netMinor });
        const country = AVAILABILITY_COUNTRY[c.method];
        const paidOn = localDate(c.paidAt, country);
        const main = parts.filter((p) => !p.reserve);
        expect(main.map((p) => p.installment)).toEqual(main.map((_, i) => i + 1));
        const perInstallment = 'days_per_installment' in effectiveAvailability(s).methods[c.method];
        expect(main).toHaveLength(perInstallment ? Math.max(1, c.installments) : 1);
        for (let i = 0; i < parts.length; i += 1) {
          const part = parts[i]!;
          expect(isBusinessDay(part.availableOn, country)).toBe(true);
          expect(part.availableOn >= paidOn).toBe(true);
          if (part.reserve) {
            const from = parts[i - 1]!;
            expect(from.installment).toBe(part.installment);
            expect(part.availableOn > from.availableOn).toBe(true);
            expect(part.netMinor).toBe(applyPpm(from.netMinor + part.netMinor, BigInt(s.reserve_ppm ?? 0)));
            expect([part.grossMinor, part.feeMinor]).toEqual([part.netMinor, 0n]);
          }
        }
        // Non-decreasing: one day per installment can roll two parts onto the same Monday.
        for (let i = 1; i < main.length; i += 1) expect(main[i]!.availableOn >= main[i - 1]!.availableOn).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps gross − fee = net on every part when the capture does', () => {
    fc.assert(
      fc.property(schedule, input, (s, c) => {
        const consistent = { ...c, netMinor: c.grossMinor - c.feeMinor };
        for (const part of availabilityParts(s, consistent)) expect(part.grossMinor - part.feeMinor).toBe(part.netMinor);
      }),
      { numRuns: 200 },
    );
  });
});

describe('dates remembered by capture day and schedule', () => {
  it('gives each schedule, delay, installment count, reserve and local day its own dates, however the calls interleave', () => {
    const card = (installments: number, at = '2025-09-25T15:00:00Z') => ({ ...capture('CREDITCARD', at), installments });
    const cases: [AvailabilitySchedule, AvailabilityInput, string[]][] = [
      [{ methods: { CREDITCARD: { days_per_installment: 30 } } }, card(1), ['2025-10-27']],
      [{ methods: { CREDITCARD: { days_per_installment: 15 } } }, card(1), ['2025-10-10']],
      [{ methods: { CREDITCARD: { days_per_installment: 30 } } }, card(2), ['2025-10-27', '2025-11-24']],
      [{ methods: { CREDITCARD: { business_days: 1 } } }, card(2), ['2025-09-26']],
      [{ methods: { CREDITCARD: { business_days: 2 } } }, card(2), ['2025-09-29']],
      // 02:59 UTC on the 26th is still the 25th in Brasília; 03:00 is the 26th (a Friday: D+1 is Monday).
      [{ methods: { DEBITCARD: { business_days: 1 } } }, capture('DEBITCARD', '2025-09-26T02:59:00Z'), ['2025-09-26']],
      [{ methods: { DEBITCARD: { business_days: 1 } } }, capture('DEBITCARD', '2025-09-26T03:00:00Z'), ['2025-09-29']],
      // The same day and delay in Mexico City: 16 September is a Mexican bank holiday, not a Brazilian one.
      [{ methods: { OXXO: { business_days: 1 } } }, capture('OXXO', '2025-09-15T15:00:00Z'), ['2025-09-17']],
      [{ methods: { DEBITCARD: { business_days: 1 } } }, capture('DEBITCARD', '2025-09-15T15:00:00Z'), ['2025-09-16']],
      [{ reserve_ppm: 100_000, reserve_days: 90 }, capture('DEBITCARD', '2025-09-25T15:00:00Z'), ['2025-09-26', '2025-12-26']],
      [{ reserve_ppm: 100_000, reserve_days: 30 }, capture('DEBITCARD', '2025-09-25T15:00:00Z'), ['2025-09-26', '2025-10-27']],
    ];
    for (let round = 0; round < 3; round += 1) {
      for (const [schedule, input, dates] of round === 1 ? [...cases].reverse() : cases) {
        expect(availabilityParts(schedule, input).map((p) => p.availableOn), `${JSON.stringify(schedule)} ${input.method} ${input.paidAt.toISOString()} x${input.installments}`).toEqual(dates);
      }
    }
  });
});
