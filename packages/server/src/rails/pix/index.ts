// PIX formats: BR Code (copy-and-paste payload), its QR rendering, and end-to-end ids.
export type {
  BrCodeInput,
  DynamicBrCodeInput,
  ParsedBrCode,
  StaticBrCodeInput,
  TlvField,
} from './br-code';
export {
  BrCodeError,
  crc16CcittFalse,
  formatBrCodeAmount,
  generateBrCode,
  isValidBrCode,
  normalizeBrCodeText,
  parseBrCode,
} from './br-code';
export type { BrCodeSvgOptions } from './qr';
export { renderBrCodeSvg } from './qr';
export type { EndToEndIdParts, GenerateEndToEndIdOptions } from './end-to-end-id';
export { generateEndToEndId, isValidEndToEndId, parseEndToEndId } from './end-to-end-id';
