// Card formats: number parsing, the Luhn check, scheme detection, masking and expiry; pure, no I/O.
export {
  CARD_NUMBER_MAX_LENGTH,
  CARD_NUMBER_MIN_LENGTH,
  cardBrands,
  cardNumberLengths,
  detectCardScheme,
  luhnCheck,
  MAX_EXPIRY_YEARS_AHEAD,
  maskCardNumber,
  parseCardNumber,
  validateCardNumber,
  validateExpiry,
} from './card-number';
export type {
  CardBrand,
  CardNumberFailureReason,
  CardNumberResult,
  CardScheme,
  ExpiryFailureReason,
  ExpiryResult,
  ParseCardNumberResult,
} from './card-number';

// Card networks' dispute reason codes and their categories.
export { disputeReason } from './dispute-reasons';
export type { ReasonCategory } from './dispute-reasons';
