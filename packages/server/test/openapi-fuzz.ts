import fc from 'fast-check';
import { ERRORS } from '../src/http/errors';
import { PAYOUT_EXAMPLES } from '../src/payouts/validation/examples';

/**
 * A fuzzer driven by Colibri's own OpenAPI document: for every operation it generates requests from
 * the operation's schemas with fast-check, then spoils them (a hostile value at any node of the body,
 * hostile path and query parameters, raw bodies that are not JSON, too deep or in another content
 * type), sends them over real HTTP, and checks the promise of CONTRACTS.md "Errors": no 5xx, and every
 * error in the standard body with catalogue codes.
 *
 * The schema-to-arbitrary translation covers the JSON Schema that the routes' TypeBox schemas produce
 * (types, enums, const, anyOf/oneOf, bounds, patterns, formats); it is written here because the
 * generators that read OpenAPI produce examples, not fast-check arbitraries with a seed that
 * reproduces a run. Used by test/fuzz.test.ts (a few thousand inputs per CI run) and bench/fuzz.ts
 * (100,000 and more).
 */

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  $ref?: string;
}

export interface Operation {
  method: string;
  /** The OpenAPI path, with `{name}` parameters. */
  path: string;
  pathParams: string[];
  query: { name: string; schema: JsonSchema }[];
  body: JsonSchema | undefined;
  /** Which token the operation takes. */
  auth: 'merchant' | 'admin' | 'none';
}

/** Known resources, so that some generated requests reach real rows and not only "not found". */
export type IdPool = Record<string, string[]>;

export interface FuzzRequest {
  operation: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Lists the operations of an OpenAPI 3.1 document. */
export function operationsOf(doc: { paths: Record<string, Record<string, any>>; components?: any }): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const parameters = (op.parameters ?? []) as { in: string; name: string; schema: JsonSchema }[];
      const security = (op.security ?? [{ authToken: [] }]) as Record<string, unknown>[];
      const auth = security.length === 0 ? 'none' : security.some((s) => 'adminToken' in s) ? 'admin' : 'merchant';
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
        body: op.requestBody?.content?.['application/json']?.schema as JsonSchema | undefined,
        auth: path === '/auth' || path.startsWith('/pay/') ? 'none' : auth,
      });
    }
  }
  return operations;
}

/** Values that have broken services before: each is tried in place of a well-formed one. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\ud83d\ude00',
  '\u202e\u0041',
  '０１２３',
  '9'.repeat(40),
  '-1',
  '0',
  '1e400',
  '-0.00',
  '1.999',
  '99999999999999999999.99',
  'NaN',
  'Infinity',
  '0x10',
  ' 10.00 ',
  '10,50',
  "'; drop table payments; --",
  '" or ""="',
  '../../../../etc/passwd',
  '%00',
  '%2e%2e%2f',
  '<script>alert(1)</script>',
  '{{7*7}}',
  '${jndi:ldap://127.0.0.1/a}',
  'http://127.0.0.1:1/cb',
  'http://[::ffff:0:7f00:1]/cb',
  'http://169.254.169.254/latest',
  'javascript:alert(1)',
  '2026-02-30',
  '9999-12-31T23:59:59Z',
  '00000000-0000-0000-0000-000000000000',
  'x'.repeat(3000),
];

const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom<unknown>(...HOSTILE_STRINGS), weight: 4 },
  { arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, -0, 2 ** 53 + 1, 1e308, -1e308, Number.MIN_VALUE), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.constantFrom<unknown>([], {}, [null], { __proto__: { polluted: true } }, JSON.parse('{"__proto__":{"polluted":true}}'), { constructor: { prototype: { polluted: true } } }), weight: 1 },
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileScalar, weight: 6 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
  { arbitrary: fc.integer({ min: 33, max: 200 }).map((depth) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown), weight: 1 },
);

function resolve(schema: JsonSchema, doc: any): JsonSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.split('/').pop() ?? '';
  return (doc?.components?.schemas?.[name] ?? {}) as JsonSchema;
}

/**
 * An arbitrary for a JSON Schema. With `chaos` > 0, each node is replaced by a hostile value with
 * that probability (in percent), which keeps most of a request well formed so that the spoiled field
 * is what the service has to deal with.
 */
export function arbitraryOf(schema: JsonSchema, chaos: number, doc?: unknown, depth = 0): fc.Arbitrary<unknown> {
  const base = wellFormed(resolve(schema, doc), chaos, doc, depth);
  if (chaos <= 0) return base;
  return fc.oneof({ arbitrary: base, weight: 100 - chaos }, { arbitrary: hostileValue, weight: chaos });
}

function wellFormed(schema: JsonSchema, chaos: number, doc: unknown, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union && union.length > 0) return fc.oneof(...union.map((s) => arbitraryOf(s, chaos, doc, depth)));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1_000_000, -1e9), max: Math.min(schema.maximum ?? 1_000_000, 1e9) });
    case 'number':
      return fc.oneof(
        fc.integer({ min: Math.max(schema.minimum ?? -1_000_000, -1e9), max: Math.min(schema.maximum ?? 1_000_000, 1e9) }),
        fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9 }),
      );
    case 'boolean':
      return fc.boolean();
    case 'array': {
      if (depth > 6) return fc.constant([]);
      const minLength = schema.minItems ?? 0;
      return fc.array(arbitraryOf(schema.items ?? {}, chaos, doc, depth + 1), { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)) });
    }
    case 'object': {
      if (depth > 6 || !schema.properties) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(schema.properties)) model[name] = arbitraryOf(property, chaos, doc, depth + 1);
      // Required fields are dropped now and then, too.
      const required = chaos > 0 ? (schema.required ?? []).filter((_, i) => i % 7 !== 3) : (schema.required ?? []);
      return fc.record(model, { requiredKeys: required.filter((k) => k in model) });
    }
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  const maxLength = Math.min(schema.maxLength ?? 40, 80);
  const minLength = Math.min(schema.minLength ?? 0, maxLength);
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'uri':
      return fc.webUrl();
    case 'email':
      return fc.emailAddress();
    default:
      break;
  }
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= Math.max(maxLength, minLength));
    } catch {
      // A pattern fast-check cannot generate from: fall through to plain strings.
    }
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme' });
}

/** A path parameter: a known id, a well-formed one, or something hostile. */
function pathParamOf(name: string, pool: IdPool): fc.Arbitrary<string> {
  const known = pool[name] ?? [];
  const choices: { arbitrary: fc.Arbitrary<string>; weight: number }[] = [
    { arbitrary: fc.uuid(), weight: 2 },
    { arbitrary: fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s !== '')), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }), weight: 1 },
    { arbitrary: fc.nat().map(String), weight: 1 },
  ];
  if (known.length > 0) choices.push({ arbitrary: fc.constantFrom(...known), weight: 4 });
  return fc.oneof(...choices);
}

/**
 * Percent-encodes text, writing a lone surrogate (which encodeURIComponent refuses) as the three
 * bytes it would take in WTF-8: an invalid UTF-8 sequence the service has to deal with.
 */
function encode(text: string): string {
  return text
    .split(/([\uD800-\uDFFF])/)
    .map((part) => {
      if (part.length !== 1 || part.charCodeAt(0) < 0xd800 || part.charCodeAt(0) > 0xdfff) {
        try {
          return encodeURIComponent(part);
        } catch {
          return '';
        }
      }
      const code = part.charCodeAt(0);
      return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    })
    .join('');
}

/** Encodes a path segment; now and then leaves it raw or cuts its escapes, to reach the router's own errors. */
function segment(value: string, mode: number): string {
  if (mode === 1) return value.replace(/[/?#\s]/g, '_');
  if (mode === 2) return `${encode(value)}%`;
  return encode(value);
}

/**
 * Arbitrary requests for one operation.
 * @example fc.sample(requestsFor(op, pool, tokens), { numRuns: 50, seed: 1 })
 */
export function requestsFor(op: Operation, pool: IdPool, tokens: { merchant: string; admin: string }, doc?: unknown): fc.Arbitrary<FuzzRequest> {
  const params = fc.record(Object.fromEntries(op.pathParams.map((name) => [name, pathParamOf(name, pool)])) as Record<string, fc.Arbitrary<string>>);
  const query = fc.array(
    fc.oneof(
      ...op.query.map((q) => arbitraryOf(q.schema ?? {}, 15, doc).map((v) => [q.name, typeof v === 'string' ? v : JSON.stringify(v)] as const)),
      fc.tuple(fc.constantFrom('x', 'page', 'limit', '__proto__', 'a[b]'), fc.constantFrom(...HOSTILE_STRINGS)),
    ),
    { maxLength: op.query.length + 1 },
  );
  const body: fc.Arbitrary<string | undefined> = op.body
    ? fc.oneof(
        { arbitrary: arbitraryOf(op.body, 0, doc).map((v) => JSON.stringify(v)), weight: 2 },
        { arbitrary: arbitraryOf(op.body, 12, doc).map((v) => JSON.stringify(v)), weight: 6 },
        { arbitrary: hostileValue.map((v) => JSON.stringify(v)), weight: 1 },
        { arbitrary: fc.constantFrom('{', '{"a":', '[1,]', '{"a":1}garbage', '\u0000', '{"a":"\\ud800"}', '{"a":"\\u0000"}', '{"a":1e999999}', '', 'null'), weight: 1 },
      )
    : fc.constant(undefined);
  const contentType = fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 12 },
    { arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', ''), weight: 1 },
  );
  const auth = fc.oneof({ arbitrary: fc.constant('right'), weight: 12 }, { arbitrary: fc.constantFrom('none', 'garbage', 'other'), weight: 1 });
  return fc.record({ params, query, body, contentType, auth, encoding: fc.oneof({ arbitrary: fc.constant(0), weight: 20 }, { arbitrary: fc.constantFrom(1, 2), weight: 1 }) }).map((r) => {
    let path = op.path;
    for (const [name, value] of Object.entries(r.params)) path = path.replace(`{${name}}`, segment(value, r.encoding));
    if (r.query.length > 0) path += `?${r.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}`;
    const headers: Record<string, string> = {};
    if (r.body !== undefined && r.contentType !== '') headers['content-type'] = r.contentType;
    const right = op.auth === 'admin' ? { authorization: `Bearer ${tokens.admin}` } : op.auth === 'merchant' ? { 'x-auth-token': tokens.merchant } : {};
    if (r.auth === 'right') Object.assign(headers, right);
    else if (r.auth === 'garbage') headers['x-auth-token'] = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.';
    else if (r.auth === 'other') Object.assign(headers, op.auth === 'admin' ? { 'x-auth-token': tokens.merchant } : { authorization: `Bearer ${tokens.admin}` });
    return { operation: `${op.method} ${op.path}`, method: op.method, path, headers, body: op.method === 'GET' ? undefined : r.body };
  });
}

const CODES = new Set<string>(Object.values(ERRORS).map((e) => e.code));
const ERROR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/;

/** What was wrong with one answer, or null when it kept the contract. */
export function contractBreach(status: number, contentType: string, text: string): string | null {
  if (status >= 500) return `answered ${status}`;
  if (status < 400) return null;
  if (!contentType.includes('application/json')) return `error ${status} with content type ${contentType || '(none)'}`;
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return `error ${status} with a body that is not JSON`;
  }
  // The report endpoints' own 401 body (spec, Errors).
  if (status === 401 && body?.code === 0 && body?.message === 'Invalid or expired token') return null;
  if (typeof body?.timestamp !== 'string' || !ERROR_TIMESTAMP.test(body.timestamp)) return `error ${status} without the standard timestamp`;
  if (body.status !== status || typeof body.error !== 'string' || typeof body.path !== 'string') return `error ${status} without status, error and path`;
  if (status === 401) return null;
  if (!Array.isArray(body.errors) || body.errors.length === 0) return `error ${status} without errors[]`;
  for (const item of body.errors as { code?: unknown; description?: unknown }[]) {
    if (typeof item.code !== 'string' || !CODES.has(item.code)) return `error ${status} with a code outside the catalogue: ${String(item.code)}`;
    if (typeof item.description !== 'string' || item.description === '') return `error ${status} with an empty description`;
  }
  return null;
}

export interface FuzzResult {
  sent: number;
  byStatus: Record<string, number>;
  byOperation: Record<string, number>;
  breaches: { request: FuzzRequest; breach: string; answer: string }[];
}

/**
 * Sends requests with a bounded number in flight and checks each answer.
 * @example const result = await sendAll(baseUrl, requests, 8);
 */
export async function sendAll(baseUrl: string, requests: Iterable<FuzzRequest>, concurrency: number, result?: FuzzResult): Promise<FuzzResult> {
  const out: FuzzResult = result ?? { sent: 0, byStatus: {}, byOperation: {}, breaches: [] };
  const iterator = requests[Symbol.iterator]();
  const worker = async () => {
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      const req = next.value;
      let status: number;
      let contentType: string;
      let text: string;
      try {
        const response = await fetch(`${baseUrl}${req.path}`, { method: req.method, headers: req.headers, body: req.body, redirect: 'manual' });
        status = response.status;
        contentType = response.headers.get('content-type') ?? '';
        text = await response.text();
      } catch (error) {
        // A URL that fetch itself refuses to send is not the service's answer.
        if (error instanceof TypeError && /Invalid URL|Failed to parse URL|invalid/i.test(String(error.message))) continue;
        out.breaches.push({ request: req, breach: `no answer: ${String(error)}`, answer: '' });
        continue;
      }
      out.sent += 1;
      out.byStatus[status] = (out.byStatus[status] ?? 0) + 1;
      out.byOperation[req.operation] = (out.byOperation[req.operation] ?? 0) + 1;
      const breach = contractBreach(status, contentType, text);
      if (breach) out.breaches.push({ request: req, breach, answer: text.slice(0, 500) });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

/** A merchant made through the admin API, with a fresh token. */
export interface FuzzMerchant {
  token: string;
  merchant_id: string;
  api_key: string;
  api_secret: string;
}

async function call(baseUrl: string, method: string, path: string, body: unknown, headers: Record<string, string>): Promise<any> {
  const response = await fetch(`${baseUrl}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const json = (await response.json()) as unknown;
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

/** A new access token for a merchant's credentials (tokens live 5 minutes; long runs renew them). */
export async function tokenFor(baseUrl: string, merchant: { api_key: string; api_secret: string }): Promise<string> {
  return ((await call(baseUrl, 'POST', '/auth', { apiKey: merchant.api_key, apiSecret: merchant.api_secret }, {})) as { token: string }).token;
}

/**
 * Creates, over the API alone, a merchant with one of each resource (person and card, payment,
 * checkout, subscription, payout, events), and a second merchant for processor faults, so that
 * fuzzed requests also reach real rows. Works against any running Colibri in sandbox mode.
 * @example const { pool, merchant, faults } = await seedOverHttp('http://127.0.0.1:8080', adminToken);
 */
export async function seedOverHttp(baseUrl: string, adminToken: string): Promise<{ pool: IdPool; merchant: FuzzMerchant; faults: FuzzMerchant }> {
  const admin = { authorization: `Bearer ${adminToken}` };
  const make = async (name: string): Promise<FuzzMerchant & { contract_id: string; payout_contract_id: string }> => {
    const created = await call(baseUrl, 'POST', '/admin/merchants', { name }, admin);
    return { ...created, token: await tokenFor(baseUrl, created) };
  };
  const m = await make('Fuzz Merchant');
  const faults = await make('Fuzz Faults');
  const auth = { 'x-auth-token': m.token };
  const person = await call(baseUrl, 'POST', '/checkout/person', { name: 'Maria Silva', email: 'maria@example.com', tax_id: '529.982.247-25', tax_id_type: 'CPF' }, auth);
  const card = await call(
    baseUrl,
    'POST',
    '/checkout/card',
    { public_person_id: person.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'MARIA SILVA' },
    auth,
  );
  const ids = { public_person_id: person.public_person_id as string, public_card_id: card.public_card_id as string };
  const payment = await call(
    baseUrl,
    'POST',
    '/checkout/sendPayment',
    { contract_id: m.contract_id, reference_id: 'fuzz-1', ...ids, payment: { amount: '100.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 } },
    auth,
  );
  const checkout = await call(baseUrl, 'POST', '/checkout/generate', { amount: '100.00', asset: 'BRL', referenceId: 'fuzz-co', contractId: m.contract_id, method: 'PIX' }, auth);
  const subscription = await call(
    baseUrl,
    'POST',
    '/subscriptions',
    { ...ids, amount_type: 'FIXED', amount: '10.00', asset: 'BRL', interval: 'MONTHLY', first_due_date: '2030-01-10' },
    auth,
  );
  const item = { ...structuredClone(PAYOUT_EXAMPLES[0]?.item as Record<string, unknown>), contract_id: m.payout_contract_id };
  const payouts = await call(baseUrl, 'POST', '/payoutTransaction', { payoutTransactions: [item] }, auth);
  const events = await fetch(`${baseUrl}/webhooks/events`, { headers: auth }).then((r) => r.json() as Promise<{ events?: { id: string }[] }>);
  const eventIds = (events.events ?? []).slice(0, 3).map((e) => String(e.id));
  const pool: IdPool = {
    payment_token: [payment.payment_token],
    checkout_id: [checkout.checkout_id],
    subscription_id: [subscription.subscription_id],
    tx_id: (payouts.payoutTransactionResponses ?? []).map((p: { tx_id: string }) => p.tx_id),
    id: eventIds,
    merchantId: [m.merchant_id],
  };
  return { pool, merchant: m, faults };
}
