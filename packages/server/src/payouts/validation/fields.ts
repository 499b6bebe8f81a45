/**
 * The common part of payout validation: how issues are collected, how fields are read, and what a
 * country's rules look like (one file per country: colombia.ts, peru.ts, chile.ts).
 */
import type { AndeanCountry } from '../../rails/andean/countries';
import type { PayoutIssue, PayoutRule } from './rules';

export type JsonObject = Record<string, unknown>;

// A field that failed a rule is reported through `Issues` and then read as `undefined`, which is what
// lets dependent rules skip it.
export class Issues {
  readonly list: PayoutIssue[] = [];

  add(path: string, rule: PayoutRule, description: string): undefined {
    this.list.push({ path, rule, description });
    return undefined;
  }
}

/** A rule that failed, with its description; `undefined` when the rule passed or cannot be judged yet. */
export type RuleResult = readonly [PayoutRule, string] | undefined;

/**
 * What differs between the payout countries. Everything else — the order of the fields, the enumerations
 * of types.ts, the allowed bank codes of rails/andean/banks.ts — is common (recipient.ts).
 */
export interface CountryRules {
  readonly country: AndeanCountry;
  /** Whether bank_code may be left out, given the account_type read so far (undefined: missing or invalid). */
  bankCodeOptional(accountType: string | undefined): boolean;
  /** The country's rules on account_number, in order; bank_code is undefined when missing or invalid. */
  accountNumberRule(accountType: string | undefined, bankCode: string | undefined, accountNumber: string, taxId: string | undefined): RuleResult;
  /** The country's rules on tax_id for a valid tax_id_type, in order. */
  taxIdRule(taxIdType: string, taxId: string): RuleResult;
  readonly emailRequired: boolean;
  readonly fullNameRequired: boolean;
  /**
   * Rules across fields, checked after every field's own rules; `values` holds the fields that passed.
   * The issue is reported at `field`.
   */
  acrossFieldsRule?(values: Readonly<Record<string, string>>): { readonly field: string; readonly rule: PayoutRule; readonly description: string } | undefined;
}

/** Account numbers of most types: 1 to 20 digits. */
export const DIGITS_1_TO_20 = /^\d{1,20}$/;

export const ACCOUNT_NUMBER_FORMAT: RuleResult = [
  'ACCOUNT_NUMBER_FORMAT',
  'account_number must be 1 to 20 digits, with no spaces, hyphens or other characters.',
];

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

// Enumerated values are echoed back in descriptions; free-form recipient data (account numbers, tax ids,
// names, e-mail addresses) never is, so issues can be logged without leaking personal data.
export function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

export function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** Reads a required string: missing, null and blank give REQUIRED, other types NOT_A_STRING. */
export function requiredString(
  issues: Issues,
  object: JsonObject,
  field: string,
  path: string,
  requiredWhy = '',
): string | undefined {
  const value = object[field];
  if (isAbsent(value)) return issues.add(path, 'REQUIRED', `${field} is required${requiredWhy}.`);
  if (typeof value !== 'string') return issues.add(path, 'NOT_A_STRING', `${field} must be a string; got ${kindOf(value)}.`);
  return value;
}

/**
 * Reads an optional string. Missing, null and blank all mean "not given", because clients commonly send
 * empty strings for optional fields they do not have; any other non-string is NOT_A_STRING.
 */
export function optionalString(issues: Issues, object: JsonObject, field: string, path: string): string | undefined {
  const value = object[field];
  if (isAbsent(value)) return undefined;
  if (typeof value !== 'string') return issues.add(path, 'NOT_A_STRING', `${field} must be a string; got ${kindOf(value)}.`);
  return value;
}

export function requiredEnum<T extends string>(
  issues: Issues,
  object: JsonObject,
  field: string,
  path: string,
  allowed: readonly T[],
  rule: PayoutRule,
  context: string,
): T | undefined {
  const value = requiredString(issues, object, field, path);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    return issues.add(path, rule, `${field} must be one of ${allowed.join(', ')}${context}; got ${quoted(value)}.`);
  }
  return value as T;
}
