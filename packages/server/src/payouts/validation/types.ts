import type { Currency } from '../../lib/currencies';
/**
 * The shape of a payout item once it has passed validation, and the enumerations it is checked against.
 */
import type { AndeanCountry } from '../../rails/andean/countries';

/** The payout methods the interface accepts. */
export const PAYOUT_METHODS = ['BANK_TRANSFER'] as const;
export type PayoutMethod = (typeof PAYOUT_METHODS)[number];

/**
 * Account types per country. CO: CC current, CA savings, NC cellphone number (Transfiya), DE electronic
 * deposit. PE: CC current, CA savings, CM master account. CL: CC current, CA savings, CV sight or RUT account.
 */
export const ACCOUNT_TYPES = {
  CO: ['CC', 'CA', 'NC', 'DE'],
  PE: ['CC', 'CA', 'CM'],
  CL: ['CC', 'CA', 'CV'],
} as const satisfies Record<AndeanCountry, readonly string[]>;

/** Tax id types per country. */
export const TAX_ID_TYPES = {
  CO: ['CC', 'NIT', 'CE', 'TI', 'PP'],
  PE: ['CE', 'DNI', 'PAS', 'RUC'],
  CL: ['RUT'],
} as const satisfies Record<AndeanCountry, readonly string[]>;

export type AccountType<C extends AndeanCountry> = (typeof ACCOUNT_TYPES)[C][number];
export type TaxIdType<C extends AndeanCountry> = (typeof TAX_ID_TYPES)[C][number];

/** The recipient object's field name for each country. */
export const RECIPIENT_FIELDS = {
  CO: 'required_CO',
  PE: 'required_PE',
  CL: 'required_CL',
} as const satisfies Record<AndeanCountry, string>;

/** Colombian recipient bank data. `bank_code` is absent only for NC (Transfiya) accounts. */
export interface RecipientCO {
  readonly bank_code?: string;
  readonly account_type: AccountType<'CO'>;
  readonly account_number: string;
  readonly tax_id: string;
  readonly tax_id_type: TaxIdType<'CO'>;
  readonly email?: string;
  readonly full_name?: string;
}

/** Peruvian recipient bank data. */
export interface RecipientPE {
  readonly bank_code: string;
  readonly account_type: AccountType<'PE'>;
  readonly account_number: string;
  readonly tax_id: string;
  readonly tax_id_type: TaxIdType<'PE'>;
  readonly email: string;
  readonly full_name: string;
}

/** Chilean recipient bank data. */
export interface RecipientCL {
  readonly bank_code: string;
  readonly account_type: AccountType<'CL'>;
  readonly account_number: string;
  readonly tax_id: string;
  readonly tax_id_type: TaxIdType<'CL'>;
  readonly email?: string;
  readonly full_name: string;
}

interface ValidPayoutItemBase {
  /** The amount as a canonical decimal string with exactly the currency's decimals, such as `1500.50` or `120000`. */
  readonly original_amount: string;
  /** The same amount in minor units of the currency (cents for COP and PEN, pesos for CLP). */
  readonly original_amount_minor: bigint;
  readonly payout_method: PayoutMethod;
  /** The payout contract id, always as a string (a JSON integer is carried as its decimal form). */
  readonly contract_id: string;
  readonly reference_id: string;
  readonly notification_url: string;
}

/**
 * A payout item that passed every rule. Strings are kept exactly as sent, except `full_name`, which is
 * trimmed; optional recipient fields sent empty or null are left out. Fields the interface does not
 * define are dropped.
 */
export type ValidPayoutItem =
  | (ValidPayoutItemBase & {
      readonly payment_country: 'CO';
      readonly original_currency: Currency;
      readonly payment_currency: 'COP';
      readonly required_CO: RecipientCO;
    })
  | (ValidPayoutItemBase & {
      readonly payment_country: 'PE';
      readonly original_currency: Currency;
      readonly payment_currency: 'PEN';
      readonly required_PE: RecipientPE;
    })
  | (ValidPayoutItemBase & {
      readonly payment_country: 'CL';
      readonly original_currency: Currency;
      readonly payment_currency: 'CLP';
      readonly required_CL: RecipientCL;
    });
