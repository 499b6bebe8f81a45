// Brazilian banking calendar: business days and date arithmetic on 'YYYY-MM-DD' strings.
export type { BankHoliday, IsoDate } from './business-days';
export {
  addBusinessDays,
  addDays,
  addMonthsClamped,
  addWeeks,
  addYears,
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
