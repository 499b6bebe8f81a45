import { Type, type Static } from 'typebox';
import { StringEnum, withError } from '../http/schema-kit';

/**
 * Request and response schemas of the person and card endpoints of the checkout flow. The schemas
 * check shape, type and length only; the rules of the values themselves (CPF and CNPJ check digits,
 * the Luhn check, the expiry against the merchant clock, the CVV length of the scheme) need code and
 * live in create-person.ts and create-card.ts, which report them with the vault's own error codes.
 *
 * Every string has an upper bound, so no field can make the service hash, store or echo an unbounded
 * value; the bounds are documented in docs/cards-and-persons.md.
 */

/** The longest e-mail address SMTP can deliver to (RFC 5321: a 254-character path). */
export const EMAIL_MAX_LENGTH = 254;
/** Room for a formatted CNPJ (18 characters) with stray spaces; the compact forms are 11 and 14. */
export const TAX_ID_MAX_LENGTH = 32;
/** Room for `+55 (11) 98765-4321`-style formatting around the 15 digits E.164 allows. */
export const PHONE_MAX_LENGTH = 32;
export const PERSON_NAME_MAX_LENGTH = 200;
/** Embossed names are at most 26 characters (ISO/IEC 7813); merchants often send the full name. */
export const HOLDER_NAME_MAX_LENGTH = 100;
/** 19 digits with the usual grouping spaces or hyphens. */
export const CARD_NUMBER_INPUT_MAX_LENGTH = 32;

export const TAX_ID_TYPES = ['CPF', 'CNPJ'] as const;

export const CreatePersonBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: PERSON_NAME_MAX_LENGTH, description: 'Full name of the person or company' }),
    email: Type.String({ minLength: 3, maxLength: EMAIL_MAX_LENGTH, format: 'email', description: 'Contact e-mail address' }),
    tax_id: Type.String({
      minLength: 1,
      maxLength: TAX_ID_MAX_LENGTH,
      description: 'CPF (11 digits) or CNPJ (14 characters, alphanumeric allowed), with or without punctuation',
      examples: ['123.456.789-09', '12.ABC.345/01DE-35'],
    }),
    tax_id_type: StringEnum(TAX_ID_TYPES, { description: 'Kind of tax id' }),
    phone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: PHONE_MAX_LENGTH,
        description: 'E.164: "+", country code and number, 8 to 15 digits; spaces, hyphens, dots and parentheses are ignored',
        examples: ['+55 11 98765-4321'],
      }),
    ),
  },
  { title: 'CreatePersonRequest' },
);
export type CreatePersonRequest = Static<typeof CreatePersonBody>;

export const CreatePersonResponse = Type.Object(
  {
    public_person_id: Type.String({ format: 'uuid', description: 'Identifies the person in card and payment calls' }),
    refresh_token: Type.String({ description: 'A fresh 5-minute access token' }),
  },
  { title: 'Person' },
);

/** What an invalid expiry month or year is told, by the schema and by create-card.ts alike. */
export const EXP_MONTH_RULE = 'exp_month: must be a month from 1 to 12.';
export const EXP_YEAR_RULE = 'exp_year: must be a year of four digits, or of two read as 20yy.';

// The expiry is accepted as a JSON integer or as the text printed on the card ("07", "2030", "30"),
// because card forms and the 3DS library hold it as text while server integrations hold numbers;
// both reach the same rule in create-card.ts. Whatever fails (a boolean, a 3-character month), the
// field gets the one message of its rule rather than the union's "must be an integer or a string".
const ExpiryPart = (rule: string, description: string, maxLength: number) =>
  withError(Type.Union([Type.Integer(), Type.String({ minLength: 1, maxLength })], { description }), 'CARD_EXPIRY_INVALID', rule.replace(/^\w+: /, ''));

/** A card's fields in the clear, as createCard takes them once an encrypted card is opened. */
export const CardFieldsBody = Type.Object(
  {
    public_person_id: Type.String({ minLength: 1, maxLength: 64, description: 'From POST /checkout/person, of the same merchant' }),
    number: Type.String({
      minLength: 1,
      maxLength: CARD_NUMBER_INPUT_MAX_LENGTH,
      description: 'Card number, 12 to 19 digits; spaces and hyphens are ignored. Required unless encrypted_card is sent.',
      examples: ['4111111111111111'],
    }),
    exp_month: ExpiryPart(EXP_MONTH_RULE, 'Expiry month, 1 to 12 (integer, or text such as "07"); may travel inside encrypted_card instead', 2),
    exp_year: ExpiryPart(EXP_YEAR_RULE, 'Expiry year, four digits (or two, read as 20yy); integer or text; may travel inside encrypted_card instead', 4),
    cvv: Type.String({
      minLength: 1,
      maxLength: 4,
      description: '3 digits, 4 for AMERICAN_EXPRESS; sent to the processor for verification, never stored. Required unless encrypted_card is sent.',
    }),
    holder_name: Type.String({ minLength: 1, maxLength: HOLDER_NAME_MAX_LENGTH, description: 'Name as printed on the card; may travel inside encrypted_card instead' }),
  },
  { title: 'Card fields' },
);
export type CreateCardRequest = Static<typeof CardFieldsBody>;

/** The longest compact JWE of a card that Colibri.encryptCard produces, with room to spare. */
export const ENCRYPTED_CARD_MAX_LENGTH = 4096;

/**
 * `POST /checkout/card`. Either the card in the clear (number, cvv, expiry, holder) or `encrypted_card`
 * from the browser library (`Colibri.encryptCard`), which holds at least the number and CVV. Every
 * field is optional in the schema so that one answer can name every missing field of whichever form
 * was sent (vault/routes.ts resolves them, with the same codes as the schema).
 */
export const CreateCardBody = Type.Object(
  {
    ...Type.Partial(CardFieldsBody).properties,
    encrypted_card: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: ENCRYPTED_CARD_MAX_LENGTH,
        description: "The card encrypted in the shopper's browser by Colibri.encryptCard (a compact JWE under the merchant's published key), instead of number and cvv",
      }),
    ),
  },
  { title: 'CreateCardRequest' },
);
export type CreateCardInput = Static<typeof CreateCardBody>;


export const CARD_SCHEMES = ['VISA', 'MASTER', 'ELO', 'AMERICAN_EXPRESS', 'DINERS_CLUB', 'DISCOVER', 'JCB'] as const;

export const CreateCardResponse = Type.Object(
  {
    public_card_id: Type.String({ format: 'uuid', description: 'Identifies the card in payment calls' }),
    public_card_status: Type.Literal('ACTIVE'),
    card_scheme: StringEnum(CARD_SCHEMES),
    masked_number: Type.String({ description: 'At most the first six and the last four digits', examples: ['411111******1111'] }),
    refresh_token: Type.String({ description: 'A fresh 5-minute access token' }),
  },
  { title: 'Card' },
);

export const CardEncryptionKeyResponse = Type.Object(
  {
    kid: Type.String({ description: 'The key id; encrypted cards name it in their header' }),
    alg: Type.Literal('RSA-OAEP-256'),
    enc: Type.Literal('A256GCM'),
    jwk: Type.Object(
      { kty: Type.Literal('RSA'), n: Type.String(), e: Type.String(), kid: Type.String(), alg: Type.String(), use: Type.String() },
      { description: 'The public key as a JWK (RFC 7517)' },
    ),
  },
  { title: 'Card encryption key' },
);
