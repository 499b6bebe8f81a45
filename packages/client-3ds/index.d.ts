/**
 * Types of Colibri's browser 3DS 2.0 library, `{sdk_url}/scripts/client-v1.0.min.js`.
 *
 * The script defines `window.Colibri`; these declarations describe it for merchants who write their
 * checkout page in TypeScript (`import type { Authenticate3DSRequest } from '@colibri/client-3ds'`, or
 * a triple-slash reference to this file). The library's own sources are checked against them, so
 * the published types and the shipped code cannot drift apart. docs/3ds.md documents every rule.
 */

/** PROD for live merchants; SANDBOX for tests. The service's own mode decides which cards exist. */
export type Colibri3DSEnv = 'PROD' | 'SANDBOX';

export interface SetUpOptions {
  env: Colibri3DSEnv;
  /** The merchant's public contract id (printed with its credentials). */
  contractId: string;
}

export interface Phone {
  /** Country calling code, default 55. */
  country?: number;
  /** Area code, two digits. */
  area: number;
  /** Subscriber number, 8 to 9 digits. */
  number: number;
  /** MOBILE, the default and only value. */
  type?: 'MOBILE';
}

export interface Customer {
  /** The customer's tax id (CPF or CNPJ). */
  id: string;
  name: string;
  email: string;
  /** At least one phone. */
  phones: Phone[];
}

export interface Card {
  /** Digits only, 12 to 19 of them, passing the Luhn check. */
  number: string;
  /** 1 to 12, e.g. "07". */
  expMonth: string;
  /** Four digits, with the century: "2030". */
  expYear: string;
  /** 3 or 4 digits; sent once to Colibri, never stored. */
  cvv: string;
  holder: { name: string };
}

export interface PaymentMethod {
  type: 'CREDIT_CARD' | 'DEBIT_CARD';
  /** 1 to 12, default 1. */
  installments?: number;
  card: Card;
}

export interface Amount {
  /** An integer number of cents: 1050 is 10.50 BRL. At least 100. */
  value: number;
  /** BRL, the only valid value. */
  currency: 'BRL';
}

export interface Address {
  /** When true only postalCode and number are required. */
  partialAddress?: boolean;
  street?: string;
  number: string;
  complement?: string;
  regionCode?: string;
  /** ISO 3166-1 alpha-3, default BRA. */
  country?: string;
  city?: string;
  /** 8 digits. */
  postalCode: string;
}

export interface Authenticate3DSRequest {
  /** Absolute http(s) URL notified when the payment's status changes. */
  notificationUrl: string;
  /** The merchant's reference, 1 to 45 characters. */
  referenceId: string;
  /** Default false; when true billingAddress and shippingAddress may be omitted. */
  disableAddress?: boolean;
  customer: Customer;
  paymentMethod: PaymentMethod;
  amount: Amount;
  /** Required unless disableAddress is true. */
  billingAddress?: Address;
  shippingAddress?: Address;
}

/** One failing field, named by its path in the request: `customer.phones[0].area`. */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * What onError receives. `code` is VALIDATION_ERROR (the request broke a rule; nothing was sent),
 * NOT_SET_UP, NETWORK_ERROR, AUTHENTICATION_ERROR (the card's issuer failed), CHALLENGE_CANCELED,
 * CHALLENGE_TIMEOUT, or a Colibri error code such as `06.01.0001` when the service refused the call.
 */
export interface Colibri3DSError {
  code: string;
  message: string;
  fields?: FieldError[];
}

export interface Authenticate3DSSuccess {
  /** The 3DS authentication id, for `POST /checkout/3ds/payment`. */
  id: string;
  /** The payment token the payment will have. */
  paymentToken: string;
}

export interface Authenticate3DSHandlers {
  /** The card allows authentication and the customer was authenticated. */
  onSuccess?: (data: Authenticate3DSSuccess) => void;
  /** The card allows authentication but customer authentication did not succeed. */
  onUnenrolled?: () => void;
  /** The card does not allow authentication. */
  onFailure?: () => void;
  /** An error occurred during authentication. */
  onError?: (error: Colibri3DSError) => void;
}

export type Authenticate3DSStatus = 'SUCCESS' | 'UNENROLLED' | 'FAILURE' | 'ERROR';

export interface Authenticate3DSResult {
  status: Authenticate3DSStatus;
  id?: string;
  paymentToken?: string;
  error?: Colibri3DSError;
}

/** A merchant's published card encryption key (`GET /checkout/card-encryption-key/<contractId>`). */
export interface CardEncryptionKey {
  kid: string;
  alg: 'RSA-OAEP-256';
  enc: 'A256GCM';
  jwk: { kty: 'RSA'; n: string; e: string; kid: string; alg: string; use: string };
}

/** The card to encrypt. Number and CVV are required; the expiry and holder may travel in the clear instead. */
export interface EncryptCardInput {
  /** 12 to 19 digits (spaces and hyphens are ignored), passing the Luhn check. */
  number: string;
  /** 3 or 4 digits. */
  cvv: string;
  /** 1 to 12, e.g. "07". */
  expMonth?: string;
  /** Four digits, e.g. "2030". */
  expYear?: string;
  /** The name printed on the card. */
  holder?: string;
  /** The key to use; by default the merchant's, fetched once by the contract id given to setUp. */
  publicKey?: CardEncryptionKey;
}

/** `encryptedCard` goes to the merchant's server, which sends it as `encrypted_card` to `POST /checkout/card`. */
export type EncryptCardResult = { hasErrors: false; encryptedCard: string; errors: [] } | { hasErrors: true; encryptedCard?: undefined; errors: FieldError[] };

export interface ColibriSdk {
  /** The library's version, "1.0". */
  readonly version: string;
  /**
   * @example Colibri.setUp({ env: 'SANDBOX', contractId: 'CT-1234' });
   */
  setUp(options: SetUpOptions): void;
  /**
   * Validates the request, authenticates the card with its issuer (showing the issuer's challenge in
   * an overlay when it asks for one), calls the matching handler and resolves with the same outcome.
   * The promise never rejects.
   * @example
   * const result = await Colibri.authenticate3DS(request, { onSuccess: ({ id, paymentToken }) => pay(id, paymentToken) });
   */
  authenticate3DS(request: Authenticate3DSRequest, handlers?: Authenticate3DSHandlers): Promise<Authenticate3DSResult>;
  /**
   * Encrypts card data in the shopper's browser under the merchant's published key, so the merchant's
   * server never handles the number or CVV. The promise never rejects.
   * @example
   * const { encryptedCard, hasErrors, errors } = await Colibri.encryptCard({ number: '4111111111111111', cvv: '123', expMonth: '12', expYear: '2030', holder: 'ANA LIMA' });
   */
  encryptCard(card: EncryptCardInput): Promise<EncryptCardResult>;
}

declare global {
  interface Window {
    Colibri: ColibriSdk;
  }
}
