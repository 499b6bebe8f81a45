/**
 * Code samples for every operation of the OpenAPI document, made from the operation itself: its
 * method, path, parameters, security and request body schema. They are written as `x-codeSamples`
 * (the extension Redoc and other renderers read), and `withSampleDescriptions` copies them into each
 * description for Swagger UI at `/docs`, which shows descriptions but not that extension. A sample
 * is made from the schema, so it changes with the route and cannot go stale.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is free-form JSON, walked key by key.
type Json = Record<string, any>;

export interface CodeSample {
  lang: 'Shell' | 'TypeScript';
  label: string;
  source: string;
}

const BASE = 'http://127.0.0.1:8080';
/** Tags whose operations take no token: health, the processors' notifications, the hosted page. */
const PUBLIC_TAGS: ReadonlySet<string> = new Set(['System', 'Connectors', 'Checkout page']);
/** Nested objects deeper than this are left out of a sample body: enough to show the shape. */
const MAX_DEPTH = 4;

/** Values for string formats and for fields whose name says what they hold. */
const STRING_BY_FORMAT: Readonly<Record<string, string>> = {
  'date-time': '2026-11-22T10:15:30Z',
  date: '2026-11-22',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  uri: 'https://shop.example/callbacks',
  email: 'ana@example.com',
};

function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  if (!schema?.$ref) return schema;
  return doc.components?.schemas?.[String(schema.$ref).split('/').pop()!];
}

/**
 * A plausible value for a schema: its first example, default, const or enum value, else one made from
 * its type (an object with its required properties, or all of them when none is required).
 * @example sampleOf(doc, { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } }) // { amount: 10 }
 */
export function sampleOf(doc: Json, input: Json | undefined, name = '', depth = 0): unknown {
  const schema = resolve(doc, input);
  if (!schema) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const choice = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(choice)) return sampleOf(doc, choice.find((c: Json) => resolve(doc, c)?.type !== 'null') ?? choice[0], name, depth);
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s: Json) => sampleOf(doc, s, name, depth)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      if (depth >= MAX_DEPTH) return {};
      const properties: Json = schema.properties ?? {};
      const required: string[] = Array.isArray(schema.required) && schema.required.length > 0 ? schema.required : Object.keys(properties);
      return Object.fromEntries(required.filter((key) => key in properties).map((key) => [key, sampleOf(doc, properties[key], key, depth + 1)]));
    }
    case 'array':
      return depth >= MAX_DEPTH ? [] : [sampleOf(doc, schema.items, name, depth + 1)];
    case 'integer':
      return typeof schema.minimum === 'number' && schema.minimum > 1 ? schema.minimum : 1;
    case 'number':
      return /amount/i.test(name) ? 25 : 1;
    case 'boolean':
      return true;
    case 'string':
      return STRING_BY_FORMAT[schema.format] ?? (/amount/i.test(name) ? '25.00' : /currency|asset/i.test(name) ? 'BRL' : name || 'string');
    default:
      return null;
  }
}

/** `{payment_token}` → `$PAYMENT_TOKEN`, for a shell. */
function shellVariable(name: string): string {
  return `$${name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

interface Parts {
  method: string;
  path: string;
  auth: 'merchant' | 'admin' | 'none';
  pathParams: string[];
  query: [string, unknown][];
  contentType: string | undefined;
  body: unknown;
}

function partsOf(doc: Json, method: string, path: string, op: Json): Parts {
  const security: Json[] | undefined = op.security ?? doc.security;
  // Health, the processors' notifications and the hosted page's calls are public (or signed by the processor).
  const publicTag = (op.tags ?? []).some((tag: string) => PUBLIC_TAGS.has(tag));
  const auth = publicTag || !security || security.length === 0 ? 'none' : security.some((s) => 'adminToken' in s) ? 'admin' : 'merchant';
  const parameters: Json[] = (op.parameters ?? []).map((p: Json) => (p.$ref ? doc.components?.parameters?.[String(p.$ref).split('/').pop()!] : p)).filter(Boolean);
  const content: Json = op.requestBody?.content ?? {};
  const contentType = 'application/json' in content ? 'application/json' : Object.keys(content)[0];
  return {
    method: method.toUpperCase(),
    path,
    auth,
    pathParams: parameters.filter((p) => p.in === 'path').map((p) => String(p.name)),
    query: parameters.filter((p) => p.in === 'query' && p.required).map((p) => [String(p.name), sampleOf(doc, p.schema, String(p.name))]),
    contentType,
    body: contentType ? sampleOf(doc, content[contentType]?.schema) : undefined,
  };
}

function curlOf(parts: Parts): string {
  const path = parts.path.replace(/\{([^}]+)\}/g, (_, name: string) => shellVariable(name));
  const query = parts.query.length > 0 ? `?${parts.query.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&')}` : '';
  const lines = [`curl -X ${parts.method} "${BASE}${path}${query}"`];
  if (parts.auth === 'merchant') lines.push('-H "X-Auth-Token: $TOKEN"');
  if (parts.auth === 'admin') lines.push('-H "Authorization: Bearer $ADMIN_TOKEN"');
  if (parts.method === 'POST' && parts.path !== '/auth') lines.push('-H "Idempotency-Key: $(uuidgen)"');
  if (parts.contentType === 'application/json') {
    lines.push("-H 'content-type: application/json'", `-d '${JSON.stringify(parts.body ?? {}).replaceAll("'", "'\\''")}'`);
  } else if (parts.contentType === 'multipart/form-data') {
    for (const [key, value] of Object.entries((parts.body as Json | null) ?? {})) lines.push(`-F "${key}=${typeof value === 'string' && value.length > 0 ? value : '@file.pdf'}"`);
  } else if (parts.contentType) {
    lines.push(`-H 'content-type: ${parts.contentType}'`, '--data-binary @body');
  }
  return lines.join(' \\\n  ');
}

function sdkOf(parts: Parts): string {
  const options: string[] = [];
  const params: string[] = [];
  if (parts.pathParams.length > 0) params.push(`path: { ${parts.pathParams.map((name) => `${name}: '…'`).join(', ')} }`);
  if (parts.query.length > 0) params.push(`query: ${JSON.stringify(Object.fromEntries(parts.query))}`);
  if (params.length > 0) options.push(`params: { ${params.join(', ')} }`);
  if (parts.contentType === 'application/json' && parts.body !== undefined) options.push(`body: ${JSON.stringify(parts.body, null, 2).replace(/\n/g, '\n  ')}`);
  const call = `colibri.api.${parts.method}('${parts.path}'${options.length > 0 ? `, {\n  ${options.join(',\n  ')},\n}` : ''})`;
  return [
    "import { Colibri } from '@colibri/sdk';",
    '',
    `const colibri = new Colibri({ baseUrl: '${BASE}', apiKey: process.env.COLIBRI_API_KEY!, apiSecret: process.env.COLIBRI_API_SECRET! });`,
    '// The typed client of every operation; the resource methods (colibri.payments.send, …) wrap the common ones.',
    `const { data, error } = await ${call};`,
  ].join('\n');
}

/**
 * The samples of one operation: curl always; the SDK's typed call for the merchant API (the SDK is
 * generated from that document, and signs in with an API key and secret).
 * @example codeSamples(doc, 'post', '/refund', doc.paths['/refund'].post, { sdk: true })
 */
export function codeSamples(doc: Json, method: string, path: string, op: Json, options: { sdk: boolean }): CodeSample[] {
  const parts = partsOf(doc, method, path, op);
  const samples: CodeSample[] = [{ lang: 'Shell', label: 'curl', source: curlOf(parts) }];
  if (options.sdk && parts.auth !== 'admin') samples.push({ lang: 'TypeScript', label: 'SDK (@colibri/sdk)', source: sdkOf(parts) });
  return samples;
}

/** Writes `x-codeSamples` on every operation of a document (in place). */
export function addCodeSamples(doc: Json, options: { sdk: boolean }): void {
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) op['x-codeSamples'] = codeSamples(doc, method, path, op, options);
  }
}

/**
 * A copy of a document whose descriptions end with their operation's code samples, as Markdown, for
 * Swagger UI (which renders descriptions but not `x-codeSamples`).
 */
export function withSampleDescriptions(input: Json): Json {
  const doc: Json = structuredClone(input);
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const op of Object.values<Json>(item)) {
      const samples: CodeSample[] = op['x-codeSamples'] ?? [];
      const blocks = samples.map((s) => `**${s.label}**\n\n\`\`\`${s.lang === 'Shell' ? 'sh' : 'ts'}\n${s.source}\n\`\`\``);
      if (blocks.length > 0) op.description = `${op.description ?? ''}\n\n${blocks.join('\n\n')}`;
    }
  }
  return doc;
}
