// Brazilian account and document formats: pure validation, no I/O.
export { maskTaxId, validateCnpj, validateCpf, validateTaxId } from './documents';
export type { TaxIdFailureReason, TaxIdResult, TaxIdType } from './documents';
export { detectPixKeyType, PIX_EMAIL_MAX_LENGTH, validatePixKey } from './pix-key';
export type { PixKeyFailureReason, PixKeyResult, PixKeyType } from './pix-key';
