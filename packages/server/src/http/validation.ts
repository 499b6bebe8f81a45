import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ApiError, type ErrorKey } from './errors';

/**
 * Request validation. Bodies are validated strictly (no type coercion: a number where the spec says
 * string is an error), while query strings and path parameters, which are always text on the wire,
 * are coerced. Every failing field is reported, each with its own catalogue code.
 */
function makeAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    verbose: true,
    strict: false,
  });
  addFormats(ajv);
  // Schemas may name the catalogue entry and the wording of their own failure (see schema-kit.ts).
  ajv.addKeyword({ keyword: 'x-error', schemaType: 'object' });
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema);

/** Turns Ajv's instance path into the spec's field notation: `/payoutTransactions/2/amount` → `payoutTransactions[2].amount`. */
export function fieldPath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (child !== undefined) parts.push(child);
  let path = '';
  for (const raw of parts) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(part) ? `[${part}]` : path === '' ? part : `.${part}`;
  }
  return path === '' ? 'body' : path;
}

interface CustomError {
  key: ErrorKey;
  message: string;
}

function describe(error: ErrorObject): { key: ErrorKey; field: string; message: string } {
  const custom = (error.parentSchema as { 'x-error'?: CustomError } | undefined)?.['x-error'];
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') {
    const missing = String(params.missingProperty);
    const twin = nearTwin(missing, error.data);
    const hint = twin === undefined ? '' : ` The request has "${twin}": did you mean "${missing}"?`;
    return { key: 'FIELD_REQUIRED', field: fieldPath(error.instancePath, missing), message: `is required.${hint}` };
  }
  const field = fieldPath(error.instancePath);
  if (custom && error.keyword !== 'type') return { key: custom.key, field, message: custom.message };
  switch (error.keyword) {
    case 'type':
      return { key: 'FIELD_TYPE', field, message: `must be ${article(String(params.type))}.` };
    case 'maxLength':
      return { key: 'FIELD_TOO_LONG', field, message: `must be at most ${String(params.limit)} characters long.` };
    case 'minLength':
      return params.limit === 1
        ? { key: 'FIELD_TOO_SHORT', field, message: 'must not be empty.' }
        : { key: 'FIELD_TOO_SHORT', field, message: `must be at least ${String(params.limit)} characters long.` };
    case 'maxItems':
      return { key: 'FIELD_OUT_OF_RANGE', field, message: `must have at most ${String(params.limit)} items.` };
    case 'minItems':
      return { key: 'FIELD_OUT_OF_RANGE', field, message: `must have at least ${String(params.limit)} items.` };
    case 'enum':
    case 'const': {
      const allowed = (params.allowedValues as unknown[] | undefined) ?? [params.allowedValue];
      return { key: 'FIELD_NOT_ALLOWED', field, message: `must be one of ${allowed.map(String).join(', ')}.` };
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { key: 'FIELD_OUT_OF_RANGE', field, message: `must be ${String(params.comparison)} ${String(params.limit)}.` };
    case 'format':
      return { key: 'FIELD_FORMAT', field, message: `must be a valid ${String(params.format)}.` };
    case 'pattern':
      return { key: 'FIELD_FORMAT', field, message: 'has an invalid format.' };
    case 'additionalProperties':
      return { key: 'FIELD_INVALID', field: fieldPath(error.instancePath, String(params.additionalProperty)), message: 'is not a known field.' };
    default:
      return { key: 'FIELD_INVALID', field, message: error.message ?? 'is invalid.' };
  }
}

/** A name without case, `_` and `-`: `reference_id`, `referenceId` and `Reference-ID` are one. */
const folded = (name: string) => name.toLowerCase().replace(/[_-]/g, '');

/**
 * A field the object has that is likely meant as the missing one: the same name in another spelling
 * (`reference_id` for `referenceId`), or one letter off for names of six letters or more (`ammount`).
 */
function nearTwin(missing: string, data: unknown): string | undefined {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const names = Object.keys(data).slice(0, 200);
  const target = folded(missing);
  return names.find((n) => n !== missing && folded(n) === target) ?? (target.length >= 6 ? names.find((n) => n !== missing && editDistance(folded(n), target) === 1) : undefined);
}

/** Levenshtein distance, for names of a few dozen letters (bounded by the caller: 200 names of a body). */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 1 || a.length > 64) return 2;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

function article(type: string): string {
  const name = type.replace(/,/g, ' or ');
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}

/**
 * Maps Ajv failures to one catalogue item per field. For unions (`anyOf`/`oneOf`) Ajv reports every
 * branch; those branch errors are folded into the union's own failure on the same field. `more` are the
 * route's failures beyond its schema, added for fields the schema did not refuse.
 */
export function validationError(errors: readonly ErrorObject[], part: string, more: readonly { key: ErrorKey; description: string }[] = []): ApiError {
  const unionPaths = new Set(errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath));
  const seen = new Set<string>();
  const failures: { key: ErrorKey; description: string }[] = [];
  for (const error of errors) {
    if (error.keyword !== 'anyOf' && error.keyword !== 'oneOf' && isInsideUnion(error, unionPaths)) continue;
    const described =
      error.keyword === 'anyOf' || error.keyword === 'oneOf' ? describeUnion(error) : describe(error);
    const field = part === 'body' || described.field !== 'body' ? described.field : part;
    if (seen.has(field)) continue;
    seen.add(field);
    failures.push({ key: described.key, description: `${field}: ${described.message}` });
  }
  // The route's own rules (config.fieldChecks), for the fields the schema did not already refuse.
  for (const failure of more) {
    const field = failure.description.slice(0, failure.description.indexOf(':'));
    if (seen.has(field)) continue;
    seen.add(field);
    failures.push(failure);
  }
  return ApiError.fields(failures);
}

function isInsideUnion(error: ErrorObject, unionPaths: Set<string>): boolean {
  // A branch error sits at the union's path (a const/type mismatch) or below it within a branch.
  for (const path of unionPaths) {
    if (error.instancePath === path || error.instancePath.startsWith(`${path}/`)) return true;
  }
  return false;
}

function describeUnion(error: ErrorObject): { key: ErrorKey; field: string; message: string } {
  const field = fieldPath(error.instancePath);
  const custom = (error.parentSchema as { 'x-error'?: CustomError } | undefined)?.['x-error'];
  if (custom) return { key: custom.key, field, message: custom.message };
  const branches = ((error.parentSchema as { anyOf?: unknown[]; oneOf?: unknown[] }).anyOf ??
    (error.parentSchema as { oneOf?: unknown[] }).oneOf ??
    []) as { const?: unknown; type?: string }[];
  if (branches.length > 0 && branches.every((b) => b.const !== undefined)) {
    return { key: 'FIELD_NOT_ALLOWED', field, message: `must be one of ${branches.map((b) => String(b.const)).join(', ')}.` };
  }
  return { key: 'FIELD_TYPE', field, message: `must be ${branches.map((b) => article(b.type ?? 'value')).join(' or ')}.` };
}

/** How deep a JSON body may nest, unless its route says otherwise (`config.maxJsonDepth`). */
export const DEFAULT_MAX_JSON_DEPTH = 32;

/** What `inspectInput` found wrong, naming the field in the spec's notation. */
export interface InputFault {
  key: Extract<ErrorKey, 'BODY_TOO_DEEP' | 'FIELD_NUL_CHARACTER' | 'FIELD_LONE_SURROGATE'>;
  description: string;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one. Written
// without the `u` flag so that it sees UTF-16 code units, which is what a lone surrogate is.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textFault(text: string): 'FIELD_NUL_CHARACTER' | 'FIELD_LONE_SURROGATE' | null {
  if (text.includes('\u0000')) return 'FIELD_NUL_CHARACTER';
  if (LONE_SURROGATE.test(text)) return 'FIELD_LONE_SURROGATE';
  return null;
}

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/**
 * Checks a parsed request body or query for what the database or the process cannot take, before
 * any schema or handler sees it:
 * - nesting deeper than `maxDepth` (a body nested thousands deep would overflow the stack of any
 *   recursive walk later on, and no Colibri request needs more than a few levels);
 * - U+0000, which PostgreSQL text and json cannot hold;
 * - a lone UTF-16 surrogate (`"\ud800"` in JSON), which is not Unicode and which PostgreSQL's json
 *   parser refuses.
 * The walk is iterative, with an explicit stack, so that no input can exhaust the call stack; it
 * stops at the first fault, in document order, so the same bad body always gets the same answer.
 * @example inspectInput({ a: [{ b: 'x\u0000' }] }, 32) // { key: 'FIELD_NUL_CHARACTER', description: 'a[0].b: must not contain NUL characters.' }
 */
export function inspectInput(value: unknown, maxDepth: number = DEFAULT_MAX_JSON_DEPTH): InputFault | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop() as { value: unknown; path: string; depth: number };
    const current = item.value;
    if (typeof current === 'string') {
      const fault = textFault(current);
      if (fault) return describeFault(fault, item.path || 'body');
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (item.depth >= maxDepth) {
      return { key: 'BODY_TOO_DEEP', description: `${item.path || 'body'}: nests deeper than ${maxDepth} levels.` };
    }
    // Children are pushed in reverse so that they are visited in document order.
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i -= 1) stack.push({ value: current[i], path: childPath(item.path, i), depth: item.depth + 1 });
      continue;
    }
    const keys = Object.keys(current);
    for (const key of keys) {
      const fault = textFault(key);
      if (fault) return describeFault(fault, childPath(item.path, JSON.stringify(key).slice(1, -1)), 'its name');
    }
    for (let i = keys.length - 1; i >= 0; i -= 1) {
      const key = keys[i] as string;
      stack.push({ value: (current as Record<string, unknown>)[key], path: childPath(item.path, key), depth: item.depth + 1 });
    }
  }
  return null;
}

function describeFault(key: 'FIELD_NUL_CHARACTER' | 'FIELD_LONE_SURROGATE', field: string, what = ''): InputFault {
  const subject = what === '' ? '' : ` (${what})`;
  return key === 'FIELD_NUL_CHARACTER'
    ? { key, description: `${field}${subject}: must not contain NUL characters.` }
    : { key, description: `${field}${subject}: must not contain a lone UTF-16 surrogate (it is not valid Unicode).` };
}
