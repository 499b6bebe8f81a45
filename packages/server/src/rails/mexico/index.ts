// Mexican payment formats: CLABE, SPEI receiving accounts and OXXO/PAYNET cash vouchers. Pure, no I/O.
export { clabeBankCode, computeClabeCheckDigit, validateClabe } from './clabe';
export type { ClabeFailureReason, ClabeResult } from './clabe';
export { cashVoucherReference, isValidCashVoucherReference, luhnCheckDigit, renderCashVoucherBarcodeSvg } from './cash-voucher';
export type { CashNetwork } from './cash-voucher';
export { SANDBOX_SPEI_BANK_CODE, SANDBOX_SPEI_PLAZA, speiReceivingClabe } from './spei';
