import type { StoredPayer } from '../db/tables/checkout';
import type { ErrorKey } from '../http/errors';
import { validateTaxId, type TaxIdType } from '../rails/brazil';
import { TAX_ID_MESSAGES } from '../vault/create-person';

/**
 * The payer of a boleto (the "pagador"): since 2017 Brazilian banks register a boleto only with its
 * payer's name, CPF or CNPJ and address, which segment Q of a CNAB 240 remessa carries. Colibri takes
 * the payer from the merchant at generation (`customer` and `billingAddress`, the shapes of the spec's
 * client library) or from the shopper on the hosted page, checks it here, keeps it on the session and
 * with the boleto's registration (checkout/boleto-bank.ts), and the remessa writes it.
 */
export interface BoletoPayer {
  readonly taxIdType: TaxIdType;
  /** Compact: digits (a CNPJ may carry letters in its first twelve characters). */
  readonly taxId: string;
  readonly name: string;
  readonly street: string;
  readonly number: string;
  readonly complement: string | null;
  /** The neighbourhood (bairro). */
  readonly district: string;
  readonly city: string;
  /** The state (UF), two letters. */
  readonly state: string;
  /** The CEP, 8 digits. */
  readonly postalCode: string;
}

/** The 27 federative units: a boleto's payer lives in one of them. */
export const UFS = ['AC', 'AL', 'AM', 'AP', 'BA', 'CE', 'DF', 'ES', 'GO', 'MA', 'MG', 'MS', 'MT', 'PA', 'PB', 'PE', 'PI', 'PR', 'RJ', 'RN', 'RO', 'RR', 'RS', 'SC', 'SE', 'SP', 'TO'] as const;

/** The payer's fields as one request names them: the page's `payer.*` or the generation's `customer.*` and `billingAddress.*`. */
export interface PayerFieldNames {
  readonly name: string;
  readonly taxId: string;
  readonly street: string;
  readonly number: string;
  readonly complement: string;
  readonly district: string;
  readonly city: string;
  readonly state: string;
  readonly postalCode: string;
}

export const PAGE_PAYER_FIELDS: PayerFieldNames = {
  name: 'payer.name',
  taxId: 'payer.tax_id',
  street: 'payer.street',
  number: 'payer.number',
  complement: 'payer.complement',
  district: 'payer.district',
  city: 'payer.city',
  state: 'payer.state',
  postalCode: 'payer.postal_code',
};

export const GENERATE_PAYER_FIELDS: PayerFieldNames = {
  name: 'customer.name',
  taxId: 'customer.id',
  street: 'billingAddress.street',
  number: 'billingAddress.number',
  complement: 'billingAddress.complement',
  district: 'billingAddress.district',
  city: 'billingAddress.city',
  state: 'billingAddress.regionCode',
  postalCode: 'billingAddress.postalCode',
};

/** A payer as a request gives it, before it is checked. */
export interface PayerInput {
  readonly name: string;
  readonly taxId: string;
  readonly taxIdType?: TaxIdType | undefined;
  readonly street: string;
  readonly number: string;
  readonly complement?: string | undefined;
  readonly district: string;
  readonly city: string;
  readonly state: string;
  readonly postalCode: string;
}

export type PayerFailure = { key: ErrorKey; description: string };

/**
 * Checks a payer and returns it compact (CEP digits, UF upper-case, CPF or CNPJ without punctuation), or
 * every failing field at once. The CPF's or CNPJ's check digits are verified; a CNPJ with letters (the
 * alphanumeric CNPJ issued from July 2026) is refused for now, because the numeric CNAB 240 field of
 * segment Q cannot carry it. Descriptions name the rule, never the value (personal data).
 * @example checkPayer({ name: 'Ana', taxId: '529.982.247-25', street: 'Rua A', number: '10', district: 'Centro', city: 'São Paulo', state: 'sp', postalCode: '01310-100' }, PAGE_PAYER_FIELDS)
 * // { ok: true, payer: { taxIdType: 'CPF', taxId: '52998224725', …, state: 'SP', postalCode: '01310100' } }
 */
export function checkPayer(input: PayerInput, fields: PayerFieldNames): { ok: true; payer: BoletoPayer } | { ok: false; failures: PayerFailure[] } {
  const failures: PayerFailure[] = [];
  const blank = (value: string, field: string) => {
    if (value.trim() === '') failures.push({ key: 'FIELD_TOO_SHORT', description: `${field}: must not be blank.` });
  };
  blank(input.name, fields.name);
  const compact = input.taxId.replace(/[./\s-]/g, '');
  const taxIdType: TaxIdType = input.taxIdType ?? (compact.length === 14 ? 'CNPJ' : 'CPF');
  const taxId = validateTaxId(taxIdType, input.taxId);
  if (!taxId.ok) {
    failures.push({ key: 'TAX_ID_INVALID', description: TAX_ID_MESSAGES[taxIdType][taxId.reason].replace(/^tax_id:/, `${fields.taxId}:`) });
  } else if (!/^\d+$/.test(taxId.value)) {
    failures.push({ key: 'TAX_ID_INVALID', description: `${fields.taxId}: a CNPJ with letters cannot be registered on a boleto yet (the bank's CNAB 240 file carries digits only).` });
  }
  blank(input.street, fields.street);
  blank(input.number, fields.number);
  blank(input.district, fields.district);
  blank(input.city, fields.city);
  const state = input.state.trim().toUpperCase();
  if (!(UFS as readonly string[]).includes(state)) failures.push({ key: 'FIELD_FORMAT', description: `${fields.state}: must be a Brazilian state (UF), two letters like SP.` });
  const postalCode = input.postalCode.replace(/[.\s-]/g, '');
  if (!/^\d{8}$/.test(postalCode) || postalCode === '00000000') failures.push({ key: 'FIELD_FORMAT', description: `${fields.postalCode}: must be a CEP of 8 digits, like 01310-100.` });
  if (failures.length > 0 || !taxId.ok) return { ok: false, failures };
  const complement = input.complement?.trim() ?? '';
  return {
    ok: true,
    payer: {
      taxIdType,
      taxId: taxId.value,
      name: input.name.trim(),
      street: input.street.trim(),
      number: input.number.trim(),
      complement: complement === '' ? null : complement,
      district: input.district.trim(),
      city: input.city.trim(),
      state,
      postalCode,
    },
  };
}

/** The description of the refusal of a boleto without its payer, where a bank registers it in live mode. */
export const PAYER_REQUIRED_DESCRIPTION =
  "The boleto is registered with a bank, which requires its payer: name, CPF or CNPJ, and address with CEP. Pass customer and billingAddress to /checkout/generate, or let the checkout page ask the shopper (docs/checkout.md).";

/** Segment Q's address field is 40 characters: the street gives way first, so the number stays. */
const ADDRESS_LENGTH = 40;

/** @example addressLine({ street: 'Rua Doutor Antônio Bento de Oliveira', number: '1234', complement: 'sala 5', … }) // 'Rua Doutor Antônio Bento de, 1234 sala 5' */
function addressLine(payer: Pick<BoletoPayer, 'street' | 'number' | 'complement'>): string {
  const tail = `, ${payer.number}${payer.complement ? ` ${payer.complement}` : ''}`;
  const street = payer.street.slice(0, Math.max(12, ADDRESS_LENGTH - tail.length)).trimEnd();
  return `${street}${tail}`.slice(0, ADDRESS_LENGTH);
}

/**
 * The payer as segment Q writes it: inscription type (1 CPF, 2 CNPJ), number, name, one address line
 * (street, number and complement, the street cut first), district, CEP, city and UF.
 * @example remessaPayer(payer) // { documentType: '1', document: '52998224725', address: 'Rua A, 10 ap 3', … }
 */
export function remessaPayer(payer: BoletoPayer): { documentType: '1' | '2'; document: string; name: string; address: string; district: string; postalCode: string; city: string; state: string } {
  return {
    documentType: payer.taxIdType === 'CPF' ? '1' : '2',
    document: payer.taxId,
    name: payer.name,
    address: addressLine(payer),
    district: payer.district,
    postalCode: payer.postalCode,
    city: payer.city,
    state: payer.state,
  };
}

/** The payer as a session keeps it (`checkout_sessions.payer`, JSON). */
export function storedPayer(payer: BoletoPayer): StoredPayer {
  return {
    tax_id_type: payer.taxIdType,
    tax_id: payer.taxId,
    name: payer.name,
    street: payer.street,
    number: payer.number,
    complement: payer.complement,
    district: payer.district,
    city: payer.city,
    state: payer.state,
    postal_code: payer.postalCode,
  };
}

/** A session's stored payer, or null. */
export function payerOfSession(session: { readonly payer: StoredPayer | null }): BoletoPayer | null {
  const p = session.payer;
  if (!p) return null;
  return { taxIdType: p.tax_id_type, taxId: p.tax_id, name: p.name, street: p.street, number: p.number, complement: p.complement, district: p.district, city: p.city, state: p.state, postalCode: p.postal_code };
}
