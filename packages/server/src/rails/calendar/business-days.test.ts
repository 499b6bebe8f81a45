import { describe, it, expect, vi, afterEach } from 'vitest';
import Holidays from 'date-holidays';
import {
  addBusinessDays,
  addDays,
  addMonthsClamped,
  addWeeks,
  addYears,
  bankHolidays,
  dayOfWeek,
  daysBetween,
  easterSunday,
  isBankHoliday,
  isBusinessDay,
  isIsoDate,
  nextBusinessDay,
  previousBusinessDay,
} from './business-days';

// The expected lists below are written out by hand from the published national calendars (federal holidays
// plus the Carnival and Corpus Christi bank closures), with Easter 2025 on 20 April and Easter 2026 on 5 April.
const HOLIDAYS_2025 = [
  '2025-01-01', // Confraternização Universal (Wednesday)
  '2025-03-03', // Carnival Monday
  '2025-03-04', // Carnival Tuesday
  '2025-04-18', // Good Friday
  '2025-04-21', // Tiradentes (Monday)
  '2025-05-01', // Labour Day (Thursday)
  '2025-06-19', // Corpus Christi (Thursday)
  '2025-09-07', // Independence (Sunday)
  '2025-10-12', // Nossa Senhora Aparecida (Sunday)
  '2025-11-02', // All Souls (Sunday)
  '2025-11-15', // Republic (Saturday)
  '2025-11-20', // Black Consciousness (Thursday)
  '2025-12-25', // Christmas (Thursday)
];

const HOLIDAYS_2026 = [
  '2026-01-01', // Thursday
  '2026-02-16', // Carnival Monday
  '2026-02-17', // Carnival Tuesday
  '2026-04-03', // Good Friday
  '2026-04-21', // Tiradentes (Tuesday)
  '2026-05-01', // Friday
  '2026-06-04', // Corpus Christi (Thursday)
  '2026-09-07', // Monday
  '2026-10-12', // Monday
  '2026-11-02', // Monday
  '2026-11-15', // Sunday
  '2026-11-20', // Friday
  '2026-12-25', // Friday
];

const HOLIDAYS_2023 = [
  '2023-01-01',
  '2023-02-20',
  '2023-02-21',
  '2023-04-07',
  '2023-04-21',
  '2023-05-01',
  '2023-06-08',
  '2023-09-07',
  '2023-10-12',
  '2023-11-02',
  '2023-11-15',
  '2023-12-25',
];

describe('easterSunday', () => {
  // Published Easter dates, including the earliest (22 March) and latest (25 April) possible ones.
  const published: Array<[number, string]> = [
    [1818, '1818-03-22'],
    [1943, '1943-04-25'],
    [2000, '2000-04-23'],
    [2008, '2008-03-23'],
    [2011, '2011-04-24'],
    [2016, '2016-03-27'],
    [2018, '2018-04-01'],
    [2019, '2019-04-21'],
    [2022, '2022-04-17'],
    [2023, '2023-04-09'],
    [2024, '2024-03-31'],
    [2025, '2025-04-20'],
    [2026, '2026-04-05'],
    [2027, '2027-03-28'],
    [2038, '2038-04-25'],
    [2285, '2285-03-22'],
  ];
  it.each(published)('Easter %i is %s', (year, date) => {
    expect(easterSunday(year)).toBe(date);
    expect(dayOfWeek(date)).toBe(0);
  });

  it("agrees with date-holidays' own Easter implementation for 1900-2200", () => {
    const hd = new Holidays('BR');
    for (let year = 1900; year <= 2200; year += 1) {
      const easter = hd.getHolidays(year).find((h) => h.rule === 'easter');
      expect(easter?.date.slice(0, 10), String(year)).toBe(easterSunday(year));
    }
  });

  it('rejects years outside the Gregorian range', () => {
    expect(() => easterSunday(1582)).toThrow(RangeError);
    expect(() => easterSunday(2025.5)).toThrow(RangeError);
  });
});

describe('bankHolidays', () => {
  it('lists exactly the 2025 national bank holidays', () => {
    expect(bankHolidays(2025).map((h) => h.date)).toEqual(HOLIDAYS_2025);
  });

  it('lists exactly the 2026 national bank holidays', () => {
    expect(bankHolidays(2026).map((h) => h.date)).toEqual(HOLIDAYS_2026);
  });

  it('has no 20 November in 2023, before Law 14.759/2023 made it national', () => {
    expect(bankHolidays(2023).map((h) => h.date)).toEqual(HOLIDAYS_2023);
  });

  it('names every day', () => {
    const names = bankHolidays(2025).map((h) => h.name);
    expect(names.every((n) => n.length > 0)).toBe(true);
    expect(names).toContain('Carnaval (terça-feira)');
    expect(names).toContain('Corpus Christi');
  });

  it("matches date-holidays' public and bank days, less the election Sundays, for 2023-2035", () => {
    const hd = new Holidays('BR');
    for (let year = 2023; year <= 2035; year += 1) {
      const fromLibrary = new Set(
        hd
          .getHolidays(year)
          .filter((h) => (h.type === 'public' || h.type === 'bank') && !/sunday/i.test(h.rule))
          .map((h) => h.date.slice(0, 10)),
      );
      expect([...fromLibrary].sort(), String(year)).toEqual(bankHolidays(year).map((h) => h.date));
    }
  });

  it('leaves out the Carnival Saturday, Ash Wednesday, Christmas Eve and New Year Eve', () => {
    for (const date of ['2025-03-01', '2025-03-05', '2025-12-24', '2025-12-31']) {
      expect(isBankHoliday(date), date).toBe(false);
    }
  });

  it('leaves out the 2026 election Sundays', () => {
    expect(isBankHoliday('2026-10-04')).toBe(false);
    expect(isBankHoliday('2026-10-25')).toBe(false);
    expect(isBusinessDay('2026-10-04')).toBe(false); // still a Sunday
  });

  it('refuses implausible years', () => {
    expect(() => bankHolidays(25)).toThrow(RangeError);
    expect(() => bankHolidays(3000)).toThrow(RangeError);
  });
});

describe('isBusinessDay', () => {
  it.each([...HOLIDAYS_2025, ...HOLIDAYS_2026])('%s is not a business day', (date) => {
    expect(isBusinessDay(date)).toBe(false);
  });

  it('treats 20 November as a business day in 2023 and a holiday from 2024', () => {
    expect(dayOfWeek('2023-11-20')).toBe(1); // a Monday
    expect(isBusinessDay('2023-11-20')).toBe(true);
    expect(dayOfWeek('2024-11-20')).toBe(3); // a Wednesday
    expect(isBusinessDay('2024-11-20')).toBe(false);
    expect(isBusinessDay('2025-11-20')).toBe(false);
  });

  it('rejects Saturdays and Sundays and accepts plain weekdays', () => {
    expect(isBusinessDay('2025-06-21')).toBe(false); // Saturday
    expect(isBusinessDay('2025-06-22')).toBe(false); // Sunday
    expect(isBusinessDay('2025-06-23')).toBe(true); // Monday
    expect(isBusinessDay('2025-06-20')).toBe(true); // Friday after Corpus Christi
    expect(isBusinessDay('2025-03-05')).toBe(true); // Ash Wednesday: banks open at noon, it still counts
  });

  it('counts the business days of 2025: 365 days, 104 weekend days, 9 weekday holidays', () => {
    let count = 0;
    for (let date = '2025-01-01'; date <= '2025-12-31'; date = addDays(date, 1)) {
      if (isBusinessDay(date)) count += 1;
    }
    // Weekday holidays in 2025: 1 Jan, 3 and 4 Mar, 18 and 21 Apr, 1 May, 19 Jun, 20 Nov, 25 Dec.
    expect(count).toBe(365 - 104 - 9);
  });

  it('rejects malformed or impossible dates', () => {
    expect(() => isBusinessDay('2025-02-29')).toThrow(RangeError);
    expect(() => isBusinessDay('2025-2-3')).toThrow(RangeError);
    expect(() => isBusinessDay('2025-13-01')).toThrow(RangeError);
    expect(() => isBusinessDay('0099-01-01')).toThrow(RangeError);
  });
});

describe('nextBusinessDay and previousBusinessDay', () => {
  it('returns the same date when it is a business day', () => {
    expect(nextBusinessDay('2025-04-17')).toBe('2025-04-17');
    expect(previousBusinessDay('2025-04-17')).toBe('2025-04-17');
  });

  it('skips Good Friday, the weekend and Tiradentes in 2025', () => {
    expect(nextBusinessDay('2025-04-18')).toBe('2025-04-22');
    expect(previousBusinessDay('2025-04-21')).toBe('2025-04-17');
  });

  it('skips the Carnival weekend, Monday and Tuesday', () => {
    expect(nextBusinessDay('2026-02-14')).toBe('2026-02-18');
    expect(previousBusinessDay('2026-02-17')).toBe('2026-02-13');
  });

  it('rolls over the new year', () => {
    expect(nextBusinessDay('2025-12-31')).toBe('2025-12-31'); // a Wednesday, not a bank holiday
    expect(nextBusinessDay('2026-12-25')).toBe('2026-12-28');
    expect(nextBusinessDay('2027-01-01')).toBe('2027-01-04'); // Friday holiday, then a weekend
  });
});

describe('addBusinessDays', () => {
  it('counts only business days', () => {
    expect(addBusinessDays('2025-02-28', 1)).toBe('2025-03-05');
    expect(addBusinessDays('2025-03-05', -1)).toBe('2025-02-28');
    expect(addBusinessDays('2025-04-16', 3)).toBe('2025-04-23');
    expect(addBusinessDays('2025-04-16', 0)).toBe('2025-04-16');
  });

  it('starts from the nearest business day when given a holiday', () => {
    expect(addBusinessDays('2025-04-18', 1)).toBe('2025-04-22');
  });
});

describe('date arithmetic', () => {
  it('adds days, weeks and years across month, year and leap boundaries', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2025-02-28', 1)).toBe('2025-03-01');
    expect(addDays('2025-01-01', -1)).toBe('2024-12-31');
    expect(addWeeks('2025-12-25', 1)).toBe('2026-01-01');
    expect(addYears('2024-02-29', 1)).toBe('2025-02-28');
    expect(addYears('2024-02-29', 4)).toBe('2028-02-29');
    expect(daysBetween('2024-01-01', '2025-01-01')).toBe(366);
    expect(daysBetween('2025-01-01', '2024-01-01')).toBe(-366);
  });

  it('clamps month-end dates', () => {
    expect(addMonthsClamped('2025-01-31', 1)).toBe('2025-02-28');
    expect(addMonthsClamped('2024-01-31', 1)).toBe('2024-02-29');
    expect(addMonthsClamped('2000-01-31', 1)).toBe('2000-02-29'); // divisible by 400: leap
    expect(addMonthsClamped('2100-01-31', 1)).toBe('2100-02-28'); // divisible by 100 only: common
    expect(addMonthsClamped('2025-03-31', 1)).toBe('2025-04-30');
    expect(addMonthsClamped('2025-03-31', -1)).toBe('2025-02-28');
    expect(addMonthsClamped('2025-12-31', 2)).toBe('2026-02-28');
    expect(addMonthsClamped('2025-11-30', 3)).toBe('2026-02-28');
    expect(addMonthsClamped('2025-01-15', -13)).toBe('2023-12-15');
    expect(addMonthsClamped('2025-05-31', 0)).toBe('2025-05-31');
  });

  it('does not carry a clamp forward: each call starts from the date it is given', () => {
    expect(addMonthsClamped(addMonthsClamped('2024-01-31', 1), 1)).toBe('2024-03-29');
    expect(addMonthsClamped('2024-01-31', 2)).toBe('2024-03-31');
  });

  it('rolls a clamped month-end to the next business day', () => {
    // 28 February 2026 is a Saturday; the next business day is Monday 2 March.
    expect(nextBusinessDay(addMonthsClamped('2026-01-31', 1))).toBe('2026-03-02');
    // 30 April 2025 is a Wednesday and 1 May is a holiday, so the end-of-April date stands.
    expect(nextBusinessDay(addMonthsClamped('2025-03-31', 1))).toBe('2025-04-30');
  });

  it('rejects non-integer steps', () => {
    expect(() => addDays('2025-01-01', 0.5)).toThrow(RangeError);
    expect(() => addMonthsClamped('2025-01-01', Number.NaN)).toThrow(RangeError);
  });

  it('knows some weekdays', () => {
    expect(dayOfWeek('1970-01-01')).toBe(4);
    expect(dayOfWeek('2000-01-01')).toBe(6);
    expect(dayOfWeek('2025-01-01')).toBe(3);
    expect(dayOfWeek('1969-12-31')).toBe(3);
  });

  it('validates ISO dates', () => {
    expect(isIsoDate('2024-02-29')).toBe(true);
    expect(isIsoDate('2025-02-29')).toBe(false);
    expect(isIsoDate('2025-04-31')).toBe(false);
    expect(isIsoDate('20250101')).toBe(false);
  });
});

describe('time-zone independence', () => {
  const original = process.env.TZ;
  afterEach(() => {
    if (original === undefined) delete process.env.TZ;
    else process.env.TZ = original;
    vi.resetModules();
  });

  it.each(['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/Sao_Paulo', 'Asia/Tokyo'])(
    'gives the same answers with TZ=%s',
    async (tz) => {
      process.env.TZ = tz;
      vi.resetModules();
      const fresh = await import('./business-days');
      expect(fresh.bankHolidays(2025).map((h) => h.date)).toEqual(HOLIDAYS_2025);
      expect(fresh.nextBusinessDay('2025-04-18')).toBe('2025-04-22');
      expect(fresh.addMonthsClamped('2024-01-31', 1)).toBe('2024-02-29');
      expect(fresh.dayOfWeek('2025-04-20')).toBe(0);
    },
  );
});
