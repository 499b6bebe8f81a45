import { describe, expect, it } from 'vitest';
import Holidays from 'date-holidays';
import {
  addBusinessDays,
  addDays,
  bankHolidays,
  dayOfWeek,
  isBankHoliday,
  isBusinessDay,
  nextBusinessDay,
  previousBusinessDay,
} from './business-days';
import { inaugurationDay } from './holidays-mx';

// Written out by hand from the CNBV's published calendars of the days banks close (Diario Oficial, each
// December), with Easter 2024 on 31 March, 2025 on 20 April and 2026 on 5 April.
const MX_2024 = [
  '2024-01-01', // Año Nuevo (Monday)
  '2024-02-05', // Constitution, first Monday of February
  '2024-03-18', // Benito Juárez, third Monday of March
  '2024-03-28', // Holy Thursday
  '2024-03-29', // Good Friday
  '2024-05-01', // Labour Day (Wednesday)
  '2024-09-16', // Independence (Monday)
  '2024-10-01', // Inauguration of the President (Tuesday)
  '2024-11-02', // Día de Muertos (Saturday)
  '2024-11-18', // Revolution, third Monday of November
  '2024-12-12', // Virgen de Guadalupe (Thursday)
  '2024-12-25', // Christmas (Wednesday)
];

const MX_2025 = [
  '2025-01-01', // Wednesday
  '2025-02-03', // first Monday of February
  '2025-03-17', // third Monday of March
  '2025-04-17', // Holy Thursday
  '2025-04-18', // Good Friday
  '2025-05-01', // Thursday
  '2025-09-16', // Tuesday
  '2025-11-02', // Sunday
  '2025-11-17', // third Monday of November
  '2025-12-12', // Friday
  '2025-12-25', // Thursday
];

const MX_2026 = [
  '2026-01-01', // Thursday
  '2026-02-02', // first Monday of February
  '2026-03-16', // third Monday of March
  '2026-04-02', // Holy Thursday
  '2026-04-03', // Good Friday
  '2026-05-01', // Friday
  '2026-09-16', // Wednesday
  '2026-11-02', // Monday
  '2026-11-16', // third Monday of November
  '2026-12-12', // Saturday
  '2026-12-25', // Friday
];

describe('Mexican bank holidays', () => {
  it.each([
    [2024, MX_2024],
    [2025, MX_2025],
    [2026, MX_2026],
  ])('lists exactly the CNBV closures of %i', (year, expected) => {
    expect(bankHolidays(year, 'MX').map((h) => h.date)).toEqual(expected);
  });

  it('names every day in Spanish', () => {
    const names = new Map(bankHolidays(2024, 'MX').map((h) => [h.date, h.name]));
    expect(names.get('2024-10-01')).toBe('Transmisión del Poder Ejecutivo Federal');
    expect(names.get('2024-03-28')).toBe('Jueves Santo');
    expect(names.get('2024-12-12')).toBe('Día de la Virgen de Guadalupe');
    expect([...names.values()].every((n) => n.length > 0)).toBe(true);
  });

  it('puts the inauguration on 1 December until 2018 and on 1 October from 2024, every six years', () => {
    expect(inaugurationDay(2012)).toBe('2012-12-01');
    expect(inaugurationDay(2018)).toBe('2018-12-01');
    expect(inaugurationDay(2024)).toBe('2024-10-01');
    expect(inaugurationDay(2030)).toBe('2030-10-01');
    for (const year of [2019, 2023, 2025, 2029, 2031]) expect(inaugurationDay(year), String(year)).toBeUndefined();
    expect(isBankHoliday('2030-10-01', 'MX')).toBe(true); // a Tuesday
    expect(isBankHoliday('2030-12-01', 'MX')).toBe(false);
    expect(isBankHoliday('2024-12-01', 'MX')).toBe(false);
    expect(isBankHoliday('2018-12-01', 'MX')).toBe(true);
  });

  it("matches date-holidays' public and bank days for 2006-2040, with the inauguration moved to 1 October from 2024", () => {
    const hd = new Holidays('MX');
    for (let year = 2006; year <= 2040; year += 1) {
      const fromLibrary = new Set<string>();
      for (const h of hd.getHolidays(year)) {
        if (h.type !== 'public' && h.type !== 'bank') continue;
        const date = h.date.slice(0, 10);
        // The library keeps the inauguration on 1 December every six years, the rule before 2024.
        fromLibrary.add(year >= 2024 && h.rule.includes('every 6 years') ? `${year}-10-01` : date);
      }
      expect([...fromLibrary].sort(), String(year)).toEqual(bankHolidays(year, 'MX').map((h) => h.date));
    }
  });

  it('keeps the holidays before the 2006 reform on their fixed dates', () => {
    expect(bankHolidays(2005, 'MX').map((h) => h.date)).toEqual([
      '2005-01-01',
      '2005-02-05',
      '2005-03-21',
      '2005-03-24',
      '2005-03-25',
      '2005-05-01',
      '2005-09-16',
      '2005-11-02',
      '2005-11-20',
      '2005-12-12',
      '2005-12-25',
    ]);
  });

  it('leaves out Mother’s Day (an observance), and the Brazilian holidays', () => {
    expect(isBankHoliday('2025-05-10', 'MX')).toBe(false);
    // Carnival Tuesday, Tiradentes, Corpus Christi and 20 November 2025 are Brazilian only.
    for (const date of ['2025-03-04', '2025-04-21', '2025-06-19', '2025-11-20']) {
      expect(isBusinessDay(date, 'MX'), date).toBe(true);
      expect(isBusinessDay(date, 'BR'), date).toBe(false);
    }
    // And 12 December and the movable Mondays are Mexican only.
    for (const date of ['2025-12-12', '2025-02-03', '2025-03-17', '2025-11-17']) {
      expect(isBusinessDay(date, 'MX'), date).toBe(false);
      expect(isBusinessDay(date), date).toBe(true);
    }
  });

  it('counts the business days of 2025: 365 days, 104 weekend days, 10 weekday holidays', () => {
    let count = 0;
    for (let date = '2025-01-01'; date <= '2025-12-31'; date = addDays(date, 1)) {
      if (isBusinessDay(date, 'MX')) count += 1;
    }
    // 1 Jan, 3 Feb, 17 Mar, 17 and 18 Apr, 1 May, 16 Sep, 17 Nov, 12 Dec and 25 Dec are weekdays; 2 Nov is a Sunday.
    expect(count).toBe(365 - 104 - 10);
  });

  it('refuses an unknown country and implausible years', () => {
    expect(() => isBusinessDay('2025-01-02', 'AR' as never)).toThrow(RangeError);
    expect(() => bankHolidays(2025, 'mx' as never)).toThrow(RangeError);
    expect(() => bankHolidays(3000, 'MX')).toThrow(RangeError);
  });
});

describe('Mexican business days', () => {
  it('skips Holy Thursday, Good Friday and the Easter weekend', () => {
    expect(nextBusinessDay('2025-04-17', 'MX')).toBe('2025-04-21');
    expect(previousBusinessDay('2025-04-20', 'MX')).toBe('2025-04-16');
    expect(addBusinessDays('2025-04-16', 1, 'MX')).toBe('2025-04-21');
    expect(addBusinessDays('2025-04-16', 2, 'MX')).toBe('2025-04-22');
  });

  it('skips 16 September, 12 December and the inauguration of 2024', () => {
    expect(addBusinessDays('2025-09-12', 2, 'MX')).toBe('2025-09-17');
    expect(addBusinessDays('2025-12-11', 1, 'MX')).toBe('2025-12-15'); // Friday 12 December, then the weekend
    expect(addBusinessDays('2024-09-30', 1, 'MX')).toBe('2024-10-02');
    expect(dayOfWeek('2024-10-01')).toBe(2);
  });

  it('keeps the Brazilian calendar the default', () => {
    expect(nextBusinessDay('2025-04-17')).toBe('2025-04-17'); // Holy Thursday is a Brazilian business day
    expect(nextBusinessDay('2025-04-17', 'BR')).toBe('2025-04-17');
    expect(addBusinessDays('2025-02-28', 1)).toBe('2025-03-05');
    expect(addBusinessDays('2025-02-28', 1, 'MX')).toBe('2025-03-03');
  });
});
