// Boleto formats: barcode, digitable line, due-date factor, sandbox free field, and the barcode SVG.
export type {
  BoletoBarcodeInput,
  DigitableLineValidation,
  ParsedBoleto,
  SandboxBoleto,
  SandboxFreeField,
  SandboxFreeFieldInput,
} from './boleto';
export {
  BoletoError,
  SANDBOX_BANK_CODE,
  barcodeToDigitableLine,
  buildBarcode,
  buildSandboxBoleto,
  buildSandboxFreeField,
  digitableLineToBarcode,
  dueDateFactor,
  dueDateFromFactor,
  formatDigitableLine,
  generalCheckDigit,
  isValidBarcode,
  isValidDigitableLine,
  mod10CheckDigit,
  parseBoleto,
  readSandboxFreeField,
  validateDigitableLine,
} from './boleto';
export type { BoletoBarcodeSvgOptions } from './barcode';
export { renderBoletoBarcodeSvg } from './barcode';
