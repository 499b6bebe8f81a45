// PIX "BR Code": the copy-and-paste payload behind a PIX QR code, an EMV QRCPS merchant-presented payload
// as profiled by the Central Bank of Brazil's BR Code manual.
//
// Why this generator is written here rather than taken from `pix-utils` (which is installed and is used by the
// tests as an independent parser):
// - it takes the amount as a JavaScript number and formats it with `toFixed(2)`, so money passes through a
//   float (an amount of 1.005 comes out as "1.00");
// - it cannot put an amount (ID 54) in a dynamic payload, and it always writes txid '***' there;
// - its TLV lengths count UTF-16 code units while its CRC runs over UTF-8 bytes, and its normaliser leaves
//   letters such as 'Ø' in place, so such a name gives a payload whose declared lengths do not match the bytes
//   a reader sees;
// - it does not check the txid alphabet (letters and digits only);
// - its generator module requires axios at load time to offer `fetchPayload` for dynamic codes, and this
//   module must stay pure, with no network client in its import graph.
// The format itself is small, so owning it costs little.

/** Thrown when a BR Code cannot be generated from the input, or a payload is not a valid PIX BR Code. */
export class BrCodeError extends Error {
  override name = 'BrCodeError';
}

/** Fields shared by static and dynamic BR Codes. */
interface BrCodeCommonInput {
  /** Receiver name; normalised to upper-case ASCII without accents and cut to 25 characters. */
  readonly merchantName: string;
  /** Receiver city; normalised like the name and cut to 15 characters. */
  readonly merchantCity: string;
  /**
   * Amount in reais as a decimal string with up to two decimals ("10", "10.5", "10.50"); written with exactly
   * two. Omit it to let the payer type the amount (static) or to take it from the location (dynamic).
   */
  readonly amount?: string;
  /**
   * ID 01, point of initiation method: 'single-use' writes "12", telling the payer's app the code may be paid
   * once; 'reusable' writes "11". Omitted by default for static codes; dynamic codes default to 'single-use',
   * as in the Central Bank's dynamic example.
   */
  readonly pointOfInitiation?: 'reusable' | 'single-use';
}

/** A static BR Code: the payer's app pays straight to a PIX key. */
export interface StaticBrCodeInput extends BrCodeCommonInput {
  /** The receiver's PIX key (CPF, CNPJ, e-mail, +55 phone or random EVP key), printable ASCII, up to 77. */
  readonly key: string;
  /** Reconciliation id, 1 to 25 letters and digits; '***' (none) when omitted. */
  readonly txid?: string;
  readonly location?: never;
}

/** A dynamic BR Code: the payer's app fetches the charge from the PSP's location URL. */
export interface DynamicBrCodeInput extends BrCodeCommonInput {
  /** The charge location without the 'https://' scheme, e.g. 'pix.example.com/qr/v2/9d36b84f...' (up to 77). */
  readonly location: string;
  readonly key?: never;
  /** A dynamic code always carries txid '***': the real txid is in the payload the location returns. */
  readonly txid?: never;
}

export type BrCodeInput = StaticBrCodeInput | DynamicBrCodeInput;

/** One TLV data object: a two-digit ID, and either a value or, for templates, nested objects too. */
export interface TlvField {
  readonly id: string;
  readonly value: string;
  readonly children?: readonly TlvField[];
}

/** What `parseBrCode` found in a valid PIX BR Code. */
export interface ParsedBrCode {
  readonly kind: 'static' | 'dynamic';
  readonly payloadFormatIndicator: string;
  /** '11' (reusable) or '12' (single use) when ID 01 is present. */
  readonly pointOfInitiationMethod?: string;
  /** The PIX key (static codes). */
  readonly key?: string;
  /** The charge location URL without scheme (dynamic codes). */
  readonly location?: string;
  /** Free text for the payer (sub-ID 02 of the PIX account template), when present. */
  readonly additionalInfo?: string;
  readonly merchantCategoryCode: string;
  readonly currency: string;
  /** The amount exactly as written in the payload (a decimal string), when present. */
  readonly amount?: string;
  readonly countryCode: string;
  readonly merchantName: string;
  readonly merchantCity: string;
  readonly postalCode?: string;
  /** The txid (sub-ID 05 of ID 62), '***' meaning none, when present. */
  readonly txid?: string;
  /** The CRC as written (four hex digits). */
  readonly crc: string;
  /** Every top-level data object, templates with their children parsed. */
  readonly fields: readonly TlvField[];
}

const PIX_GUI = 'br.gov.bcb.pix';
const MAX_NAME = 25;
const MAX_CITY = 15;
const MAX_KEY_OR_URL = 77; // 99 (template limit) - 18 ('0014br.gov.bcb.pix') - 4 (sub-ID and length).
const TXID = /^[A-Za-z0-9]{1,25}$/;
// Control characters never belong in a BR Code; anything else is accepted when parsing, because issuers do
// not all normalise names to ASCII. Lengths are then counted in UTF-16 code units, as JavaScript strings do.
const NO_CONTROL_CHARACTERS = /^\P{Cc}+$/u;
const AMOUNT_INPUT = /^(0|[1-9]\d*)(\.\d{1,2})?$/;
// EMV templates whose values are themselves TLV lists: merchant account information (26-51), the additional
// data field (62) and the unreserved templates (80-99).
const TEMPLATE_IDS = new Set<number>([
  ...Array.from({ length: 26 }, (_, i) => 26 + i),
  62,
  ...Array.from({ length: 20 }, (_, i) => 80 + i),
]);

/**
 * CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR) over the UTF-8
 * bytes of the text, as four upper-case hex digits. This is the checksum of a BR Code's ID 63.
 *
 * @example
 * crc16CcittFalse('123456789'); // '29B1' (the standard check value)
 */
export function crc16CcittFalse(text: string): string {
  let crc = 0xffff;
  for (const byte of new TextEncoder().encode(text)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Normalises free text for a BR Code name or city: strips accents, keeps printable ASCII, upper-cases,
 * collapses spaces and cuts to `maxLength`. Payers' apps and some banks mishandle anything else.
 *
 * @example
 * normalizeBrCodeText('  São   Paulo ', 15); // 'SAO PAULO'
 */
export function normalizeBrCodeText(text: string, maxLength: number): string {
  const ascii = text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7E]/g, '')
    .toUpperCase()
    .replace(/\s+/g, ' ')
    .trim();
  return ascii.slice(0, maxLength).trimEnd();
}

/**
 * Writes an amount in cents as the decimal string a BR Code carries (ID 54), without going through a float.
 *
 * @example
 * formatBrCodeAmount(1050n); // '10.50'
 * formatBrCodeAmount(7); // '0.07'
 */
export function formatBrCodeAmount(cents: bigint | number): string {
  if (typeof cents === 'number' && !Number.isSafeInteger(cents)) {
    throw new BrCodeError(`cents must be an integer, got ${cents}`);
  }
  const value = BigInt(cents);
  if (value <= 0n) throw new BrCodeError('amount must be greater than zero');
  const text = value.toString().padStart(3, '0');
  return formatAmount(`${text.slice(0, -2)}.${text.slice(-2)}`);
}

/**
 * Builds a PIX BR Code (copy-and-paste payload), static when given a `key` and dynamic when given a
 * `location`, with its CRC.
 *
 * @example
 * generateBrCode({
 *   key: '123e4567-e12b-12d1-a456-426655440000',
 *   merchantName: 'Fulano de Tal',
 *   merchantCity: 'Brasília',
 *   amount: '10.50',
 *   txid: 'PEDIDO123',
 * });
 * // '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865405'
 * //   + '10.505802BR5913FULANO DE TAL6008BRASILIA62130509PEDIDO1236304' + four hex digits of CRC
 */
export function generateBrCode(input: BrCodeInput): string {
  const merchantName = normalizeBrCodeText(input.merchantName, MAX_NAME);
  if (merchantName === '') throw new BrCodeError('merchantName has no usable characters');
  const merchantCity = normalizeBrCodeText(input.merchantCity, MAX_CITY);
  if (merchantCity === '') throw new BrCodeError('merchantCity has no usable characters');

  let account: string;
  let txid = '***';
  let pointOfInitiation = input.pointOfInitiation;
  if (typeof input.location === 'string') {
    if ('key' in input && input.key !== undefined) throw new BrCodeError('Give either key or location, not both');
    if ('txid' in input && input.txid !== undefined) {
      throw new BrCodeError("A dynamic BR Code carries txid '***'; the txid belongs to the charge at the location");
    }
    account = tlv('00', PIX_GUI) + tlv('25', checkLocation(input.location));
    pointOfInitiation ??= 'single-use';
  } else if (typeof input.key === 'string') {
    account = tlv('00', PIX_GUI) + tlv('01', checkKey(input.key));
    if (input.txid !== undefined) {
      if (!TXID.test(input.txid)) throw new BrCodeError('txid must be 1 to 25 letters and digits');
      txid = input.txid;
    }
  } else {
    throw new BrCodeError('Give a PIX key (static) or a location (dynamic)');
  }

  const payload =
    tlv('00', '01') +
    (pointOfInitiation === undefined ? '' : tlv('01', pointOfInitiation === 'single-use' ? '12' : '11')) +
    tlv('26', account) +
    tlv('52', '0000') +
    tlv('53', '986') +
    (input.amount === undefined ? '' : tlv('54', formatAmount(input.amount))) +
    tlv('58', 'BR') +
    tlv('59', merchantName) +
    tlv('60', merchantCity) +
    tlv('62', tlv('05', txid)) +
    '6304';
  return payload + crc16CcittFalse(payload);
}

/**
 * Parses a PIX BR Code and checks it: TLV structure, CRC, payload format '01', a PIX account template with
 * exactly one of key or location, currency 986 and country BR. Throws `BrCodeError` when anything is off.
 *
 * @example
 * parseBrCode(
 *   '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR'
 *     + '5913Fulano de Tal6008BRASILIA62070503***63041D3D',
 * ).key; // '123e4567-e12b-12d1-a456-426655440000'
 */
export function parseBrCode(payload: string): ParsedBrCode {
  if (typeof payload !== 'string' || !NO_CONTROL_CHARACTERS.test(payload)) {
    throw new BrCodeError('A BR Code is a non-empty string without control characters');
  }
  const fields = parseTlvList(payload, true);

  const last = fields[fields.length - 1];
  if (!last || last.id !== '63' || last.value.length !== 4 || !payload.endsWith(`6304${last.value}`)) {
    throw new BrCodeError('The last data object must be the CRC (ID 63, length 04)');
  }
  const expectedCrc = crc16CcittFalse(payload.slice(0, -4));
  if (last.value.toUpperCase() !== expectedCrc) {
    throw new BrCodeError(`CRC mismatch: payload says ${last.value}, content gives ${expectedCrc}`);
  }
  if (fields[0]?.id !== '00' || fields[0].value !== '01') {
    throw new BrCodeError('The payload must start with payload format indicator 000201');
  }

  const byId = new Map<string, TlvField>();
  for (const field of fields) {
    if (byId.has(field.id)) throw new BrCodeError(`Data object ${field.id} appears more than once`);
    byId.set(field.id, field);
  }
  const required = (id: string, what: string): string => {
    const value = byId.get(id)?.value;
    if (value === undefined) throw new BrCodeError(`Missing ${what} (ID ${id})`);
    return value;
  };

  const pixAccounts = fields.filter((f) => {
    const n = Number(f.id);
    return n >= 26 && n <= 51 && f.children?.find((c) => c.id === '00')?.value.toLowerCase() === PIX_GUI;
  });
  if (pixAccounts.length !== 1) {
    throw new BrCodeError(`Expected one merchant account template with GUI ${PIX_GUI}, found ${pixAccounts.length}`);
  }
  const account = pixAccounts[0]?.children ?? [];
  const key = account.find((c) => c.id === '01')?.value;
  const location = account.find((c) => c.id === '25')?.value;
  if ((key === undefined) === (location === undefined)) {
    throw new BrCodeError('The PIX account template must hold exactly one of a key (01) or a location (25)');
  }

  const currency = required('53', 'transaction currency');
  if (currency !== '986') throw new BrCodeError(`Currency must be 986 (BRL), got ${currency}`);
  const countryCode = required('58', 'country code');
  if (countryCode !== 'BR') throw new BrCodeError(`Country must be BR, got ${countryCode}`);
  const amount = byId.get('54')?.value;
  if (amount !== undefined && !/^\d+(\.\d{1,2})?$/.test(amount)) {
    throw new BrCodeError(`Malformed transaction amount ${JSON.stringify(amount)}`);
  }
  const pointOfInitiationMethod = byId.get('01')?.value;
  if (pointOfInitiationMethod !== undefined && pointOfInitiationMethod !== '11' && pointOfInitiationMethod !== '12') {
    throw new BrCodeError(`Point of initiation method must be 11 or 12, got ${pointOfInitiationMethod}`);
  }

  const additionalInfo = account.find((c) => c.id === '02')?.value;
  const postalCode = byId.get('61')?.value;
  const txid = byId.get('62')?.children?.find((c) => c.id === '05')?.value;
  return {
    kind: key !== undefined ? 'static' : 'dynamic',
    payloadFormatIndicator: '01',
    ...(pointOfInitiationMethod !== undefined ? { pointOfInitiationMethod } : {}),
    ...(key !== undefined ? { key } : {}),
    ...(location !== undefined ? { location } : {}),
    ...(additionalInfo !== undefined ? { additionalInfo } : {}),
    merchantCategoryCode: required('52', 'merchant category code'),
    currency,
    ...(amount !== undefined ? { amount } : {}),
    countryCode,
    merchantName: required('59', 'merchant name'),
    merchantCity: required('60', 'merchant city'),
    ...(postalCode !== undefined ? { postalCode } : {}),
    ...(txid !== undefined ? { txid } : {}),
    crc: last.value,
    fields,
  };
}

/**
 * Tells whether a string is a valid PIX BR Code (see `parseBrCode` for what is checked).
 *
 * @example
 * isValidBrCode('000201'); // false
 */
export function isValidBrCode(payload: string): boolean {
  try {
    parseBrCode(payload);
    return true;
  } catch (error) {
    if (error instanceof BrCodeError) return false;
    throw error;
  }
}

function tlv(id: string, value: string): string {
  if (value.length === 0 || value.length > 99) {
    throw new BrCodeError(`Data object ${id} must be 1 to 99 characters long, got ${value.length}`);
  }
  return id + String(value.length).padStart(2, '0') + value;
}

function parseTlvList(text: string, topLevel: boolean): TlvField[] {
  const fields: TlvField[] = [];
  let at = 0;
  while (at < text.length) {
    const id = text.slice(at, at + 2);
    const lengthText = text.slice(at + 2, at + 4);
    if (!/^\d{2}$/.test(id) || !/^\d{2}$/.test(lengthText)) {
      throw new BrCodeError(`Malformed data object header at position ${at}`);
    }
    const length = Number(lengthText);
    const value = text.slice(at + 4, at + 4 + length);
    if (length === 0 || value.length !== length) {
      throw new BrCodeError(`Data object ${id} at position ${at} declares length ${length} but does not fit`);
    }
    const children = topLevel && TEMPLATE_IDS.has(Number(id)) ? parseTlvList(value, false) : undefined;
    fields.push(children ? { id, value, children } : { id, value });
    at += 4 + length;
  }
  return fields;
}

function formatAmount(amount: string): string {
  if (!AMOUNT_INPUT.test(amount)) {
    throw new BrCodeError(`amount must be a decimal string with up to two decimals, got ${JSON.stringify(amount)}`);
  }
  const [whole = '', fraction = ''] = amount.split('.');
  const formatted = `${whole}.${fraction.padEnd(2, '0')}`;
  if (/^0\.00$/.test(formatted)) throw new BrCodeError('amount must be greater than zero');
  if (formatted.length > 13) throw new BrCodeError('amount is longer than the 13 characters ID 54 allows');
  return formatted;
}

function checkKey(key: string): string {
  if (key.length === 0 || key.length > MAX_KEY_OR_URL || !/^[\x21-\x7E]+$/.test(key)) {
    throw new BrCodeError(`The PIX key must be 1 to ${MAX_KEY_OR_URL} printable ASCII characters without spaces`);
  }
  return key;
}

function checkLocation(location: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
    throw new BrCodeError("The location goes without its scheme: the payer's app adds https://");
  }
  if (location.length === 0 || location.length > MAX_KEY_OR_URL || !/^[\x21-\x7E]+$/.test(location)) {
    throw new BrCodeError(`The location must be 1 to ${MAX_KEY_OR_URL} printable ASCII characters without spaces`);
  }
  return location;
}
