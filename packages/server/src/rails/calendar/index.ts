// Bank calendars (Brazil, the default, and Mexico): business days, local dates and date arithmetic on
// 'YYYY-MM-DD' strings.
export type { BankHoliday, CalendarCountry, IsoDate } from './business-days';
export {
  CALENDAR_COUNTRIES,
  addBusinessDays,
  addDays,
  addMonthsClamped,
  addWeeks,
  addYears,
  assertCalendarCountry,
  bankHolidays,
  dayOfWeek,
  daysBetween,
  easterSunday,
  fromEpochDay,
  isBankHoliday,
  isBusinessDay,
  isIsoDate,
  nextBusinessDay,
  previousBusinessDay,
  toEpochDay,
} from './business-days';
export { localDate, localEpochDay, startOfLocalDay } from './local-time';
