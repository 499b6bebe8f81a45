import type { Address, Authenticate3DSRequest, FieldError } from '../index';
import { isIsoAlpha3 } from './countries';

/**
 * The spec's rules for an authentication request, checked in the browser before anything is sent,
 * so a customer's card data never leaves the page for a request Colibri would refuse anyway. The
 * input is `unknown` because merchants call the library from plain JavaScript: every type is checked,
 * not assumed. Every failing field is reported, in the order of the request's fields, and defaults
 * (installments 1, country BRA, phone country 55 and type MOBILE) are filled into the result.
 */

export type ValidationResult = { ok: true; request: Authenticate3DSRequest } | { ok: false; fields: FieldError[] };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** The Luhn check digit test every card number passes. @example luhn('4111111111111111') // true */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * Checks an authentication request against every rule of the spec and fills in its defaults.
 * @example
 * const result = validateRequest(request);
 * if (!result.ok) console.log(result.fields); // [{ field: 'billingAddress.postalCode', message: 'must be 8 digits.' }]
 */
export function validateRequest(input: unknown): ValidationResult {
  const fields: FieldError[] = [];
  const fail = (field: string, message: string) => fields.push({ field, message });
  const requireText = (value: unknown, field: string, maxLength = 255): value is string => {
    if (value === undefined || value === null) fail(field, 'is required.');
    else if (typeof value !== 'string') fail(field, 'must be a string.');
    else if (value.trim() === '') fail(field, 'must not be blank.');
    else if (value.length > maxLength) fail(field, `must be at most ${maxLength} characters.`);
    else return true;
    return false;
  };

  if (!isObject(input)) return { ok: false, fields: [{ field: 'request', message: 'must be an object.' }] };

  if (requireText(input.notificationUrl, 'notificationUrl', 2048) && !isHttpUrl(input.notificationUrl)) {
    fail('notificationUrl', 'must be an absolute http or https URL.');
  }
  requireText(input.referenceId, 'referenceId', 45);
  if (input.disableAddress !== undefined && typeof input.disableAddress !== 'boolean') fail('disableAddress', 'must be true or false.');

  const customer = input.customer;
  let phones: Json[] = [];
  if (!isObject(customer)) fail('customer', customer === undefined ? 'is required.' : 'must be an object.');
  else {
    requireText(customer.id, 'customer.id', 32);
    requireText(customer.name, 'customer.name', 200);
    if (requireText(customer.email, 'customer.email', 254) && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(customer.email)) {
      fail('customer.email', 'must be an e-mail address.');
    }
    if (!Array.isArray(customer.phones) || customer.phones.length === 0) {
      fail('customer.phones', customer.phones === undefined ? 'is required.' : 'must be a non-empty array of phones.');
    } else {
      phones = customer.phones.map((phone: unknown, i) => checkPhone(phone, `customer.phones[${i}]`, fail));
    }
  }

  const method = input.paymentMethod;
  let installments = 1;
  if (!isObject(method)) fail('paymentMethod', method === undefined ? 'is required.' : 'must be an object.');
  else {
    if (method.type === undefined) fail('paymentMethod.type', 'is required.');
    else if (method.type !== 'CREDIT_CARD' && method.type !== 'DEBIT_CARD') fail('paymentMethod.type', 'must be CREDIT_CARD or DEBIT_CARD.');
    if (method.installments !== undefined) {
      if (!Number.isInteger(method.installments) || (method.installments as number) < 1 || (method.installments as number) > 12) {
        fail('paymentMethod.installments', 'must be an integer from 1 to 12.');
      } else installments = method.installments as number;
    }
    checkCard(method.card, fail);
  }

  const amount = input.amount;
  if (!isObject(amount)) fail('amount', amount === undefined ? 'is required.' : 'must be an object.');
  else {
    if (amount.value === undefined) fail('amount.value', 'is required.');
    else if (typeof amount.value !== 'number' || !Number.isSafeInteger(amount.value)) fail('amount.value', 'must be an integer number of cents (1050 is 10.50 BRL).');
    else if (amount.value < 100) fail('amount.value', 'must be at least 100 cents (1.00 BRL).');
    if (amount.currency === undefined) fail('amount.currency', 'is required.');
    else if (amount.currency !== 'BRL') fail('amount.currency', 'must be BRL, the only valid currency.');
  }

  const disableAddress = input.disableAddress === true;
  let billing: Address | undefined;
  if (input.billingAddress === undefined || input.billingAddress === null) {
    if (!disableAddress) fail('billingAddress', 'is required unless disableAddress is true.');
  } else billing = checkAddress(input.billingAddress, 'billingAddress', fail);
  const shipping = input.shippingAddress === undefined || input.shippingAddress === null ? undefined : checkAddress(input.shippingAddress, 'shippingAddress', fail);

  if (fields.length > 0) return { ok: false, fields };
  const valid = input as unknown as Authenticate3DSRequest;
  return {
    ok: true,
    request: {
      ...valid,
      disableAddress,
      customer: { ...valid.customer, phones: phones as never },
      paymentMethod: { ...valid.paymentMethod, installments },
      ...(billing ? { billingAddress: billing } : {}),
      ...(shipping ? { shippingAddress: shipping } : {}),
    },
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

function checkPhone(phone: unknown, path: string, fail: (field: string, message: string) => void): Json {
  if (!isObject(phone)) {
    fail(path, 'must be an object.');
    return {};
  }
  const country = phone.country ?? 55;
  if (!Number.isInteger(country) || (country as number) < 1 || (country as number) > 999) fail(`${path}.country`, 'must be an integer calling code of 1 to 3 digits.');
  if (phone.area === undefined) fail(`${path}.area`, 'is required.');
  else if (!Number.isInteger(phone.area) || (phone.area as number) < 10 || (phone.area as number) > 99) fail(`${path}.area`, 'must be an integer of two digits.');
  if (phone.number === undefined) fail(`${path}.number`, 'is required.');
  else if (!Number.isInteger(phone.number) || (phone.number as number) < 10_000_000 || (phone.number as number) > 999_999_999) {
    fail(`${path}.number`, 'must be an integer of 8 to 9 digits.');
  }
  const type = phone.type ?? 'MOBILE';
  if (type !== 'MOBILE') fail(`${path}.type`, 'must be MOBILE.');
  return { ...phone, country, type };
}

function checkCard(card: unknown, fail: (field: string, message: string) => void): void {
  const path = 'paymentMethod.card';
  if (!isObject(card)) {
    fail(path, card === undefined ? 'is required.' : 'must be an object.');
    return;
  }
  if (card.number === undefined) fail(`${path}.number`, 'is required.');
  else if (typeof card.number !== 'string' || !/^[0-9]{12,19}$/.test(card.number)) fail(`${path}.number`, 'must be 12 to 19 digits, with nothing else.');
  else if (!luhn(card.number)) fail(`${path}.number`, 'fails the Luhn check; a digit is probably mistyped.');
  if (card.expMonth === undefined) fail(`${path}.expMonth`, 'is required.');
  else if (typeof card.expMonth !== 'string' || !/^(0?[1-9]|1[0-2])$/.test(card.expMonth)) fail(`${path}.expMonth`, 'must be a month from 1 to 12, as a string ("07").');
  if (card.expYear === undefined) fail(`${path}.expYear`, 'is required.');
  else if (typeof card.expYear !== 'string' || !/^[0-9]{4}$/.test(card.expYear)) fail(`${path}.expYear`, 'must be the year with its century, four digits ("2030").');
  if (card.cvv === undefined) fail(`${path}.cvv`, 'is required.');
  else if (typeof card.cvv !== 'string' || !/^[0-9]{3,4}$/.test(card.cvv)) fail(`${path}.cvv`, 'must be 3 or 4 digits.');
  const holder = card.holder;
  if (!isObject(holder)) fail(`${path}.holder`, holder === undefined ? 'is required.' : 'must be an object.');
  else if (holder.name === undefined) fail(`${path}.holder.name`, 'is required.');
  else if (!isText(holder.name) || holder.name.length > 100) fail(`${path}.holder.name`, 'must be the name printed on the card, 1 to 100 characters.');
}

function checkAddress(address: unknown, path: string, fail: (field: string, message: string) => void): Address | undefined {
  if (!isObject(address)) {
    fail(path, 'must be an object.');
    return undefined;
  }
  if (address.partialAddress !== undefined && typeof address.partialAddress !== 'boolean') fail(`${path}.partialAddress`, 'must be true or false.');
  const partial = address.partialAddress === true;
  const text = (name: string, required: boolean, maxLength = 120) => {
    const value = address[name];
    if (value === undefined || value === null) {
      if (required) fail(`${path}.${name}`, partial ? 'is required.' : 'is required unless partialAddress is true.');
    } else if (typeof value !== 'string') fail(`${path}.${name}`, 'must be a string.');
    else if (required && value.trim() === '') fail(`${path}.${name}`, 'must not be blank.');
    else if (value.length > maxLength) fail(`${path}.${name}`, `must be at most ${maxLength} characters.`);
  };
  text('street', !partial);
  // The house number is required even in a partial address.
  if (address.number === undefined || address.number === null) fail(`${path}.number`, 'is required.');
  else if (!isText(address.number) || address.number.length > 20) fail(`${path}.number`, 'must be a string of 1 to 20 characters.');
  text('complement', false);
  text('regionCode', !partial, 10);
  const country = address.country ?? 'BRA';
  if (typeof country !== 'string' || !isIsoAlpha3(country)) fail(`${path}.country`, 'must be an ISO 3166-1 alpha-3 country code such as BRA.');
  text('city', !partial);
  if (address.postalCode === undefined || address.postalCode === null) fail(`${path}.postalCode`, 'is required.');
  else if (typeof address.postalCode !== 'string' || !/^[0-9]{8}$/.test(address.postalCode)) fail(`${path}.postalCode`, 'must be 8 digits, with nothing else.');
  return { ...(address as unknown as Address), partialAddress: partial, country: country as string };
}
