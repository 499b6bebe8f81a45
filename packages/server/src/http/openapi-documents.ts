import { addCodeSamples } from './openapi-samples';

/**
 * The one OpenAPI document the routes describe, cut in two for its two readers (docs/conventions.md,
 * "API reference"):
 * - the merchant API (`/openapi.json`, `/docs`): what a merchant integrates, tags in the order of an
 *   integration, with curl and SDK samples. The SDK is generated from it;
 * - the operator and internal API (`/openapi/operator.json`, `/docs/operator`): the admin routes (admin
 *   token), health and readiness, the processors' notifications and the hosted checkout page's own calls,
 *   which no merchant calls.
 * Each keeps only the components its operations reach, so neither carries the other's schemas.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is free-form JSON, walked key by key.
type Json = Record<string, any>;

/** The tags of the operator document; every other tag is the merchant's. */
export const OPERATOR_TAGS = ['System', 'Admin', 'Connectors', 'Checkout page'] as const;

/**
 * The merchant's tags in the order an integration meets them: sign in, take a payment (hosted checkout
 * first, then the direct API), refund, pay out, charge again, report, look a payment up, then the money
 * and the events around it, and the sandbox last.
 */
export const MERCHANT_TAG_ORDER = [
  'Authentication',
  'Checkout',
  'Persons and cards',
  'Payments',
  '3DS',
  'Refunds',
  'Payouts',
  'Subscriptions',
  'Reports',
  'Transaction details',
  'Balance',
  'Disputes',
  'Callbacks',
  'Sandbox',
] as const;

function isOperatorOperation(op: Json): boolean {
  return (op.tags ?? []).some((tag: string) => (OPERATOR_TAGS as readonly string[]).includes(tag));
}

/** Every `#/components/<kind>/<name>` reached from the paths and the webhooks, following references inside components. */
function reachedComponents(doc: Json): Set<string> {
  const reached = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/') && !reached.has(value)) {
        reached.add(value);
        const [, , kind, name] = value.split('/');
        walk(doc.components?.[kind!]?.[name!]);
      } else walk(value);
    }
  };
  walk(doc.paths);
  walk(doc.webhooks);
  return reached;
}

function documentOf(full: Json, keep: (op: Json) => boolean, order: readonly string[], info: Json, sdk: boolean): Json {
  const doc: Json = structuredClone(full);
  doc.info = { ...doc.info, ...info };
  // The callbacks a merchant receives are the merchant document's alone.
  if (!sdk) delete doc.webhooks;
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) if (!keep(op)) delete item[method];
    if (Object.keys(item).length === 0) delete doc.paths[path];
  }
  const used = new Set(Object.values<Json>(doc.paths).flatMap((item) => Object.values<Json>(item).flatMap((op) => op.tags ?? [])));
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  doc.tags = (doc.tags ?? []).filter((t: Json) => used.has(t.name)).sort((a: Json, b: Json) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
  const reached = reachedComponents(doc);
  for (const kind of ['schemas', 'parameters']) {
    for (const name of Object.keys(doc.components?.[kind] ?? {})) if (!reached.has(`#/components/${kind}/${name}`)) delete doc.components[kind][name];
  }
  // A scheme no operation (nor the default) names is left out, so the merchant's page offers no admin token.
  const schemes = new Set([...(doc.security ?? []), ...Object.values<Json>(doc.paths).flatMap((item) => Object.values<Json>(item).flatMap((op) => op.security ?? []))].flatMap((s: Json) => Object.keys(s)));
  for (const name of Object.keys(doc.components?.securitySchemes ?? {})) if (!schemes.has(name)) delete doc.components.securitySchemes[name];
  addCodeSamples(doc, { sdk });
  return doc;
}

/**
 * The merchant API: every operation but the operator's and the internal ones.
 * @example const doc = merchantDocument(app.swagger());
 */
export function merchantDocument(full: Json): Json {
  return documentOf(full, (op) => !isOperatorOperation(op), MERCHANT_TAG_ORDER, { title: 'Colibri payments API' }, true);
}

/**
 * The operator and internal API: admin routes, health, processor notifications, the hosted page's calls.
 * @example const doc = operatorDocument(app.swagger());
 */
export function operatorDocument(full: Json): Json {
  return documentOf(
    full,
    isOperatorOperation,
    OPERATOR_TAGS,
    {
      title: 'Colibri operator and internal API',
      description: "The operator's routes (admin token), health and readiness, the processors' notifications and the hosted checkout page's own calls. Merchants integrate the payments API at /docs.",
    },
    false,
  );
}
