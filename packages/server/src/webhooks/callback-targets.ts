import { isIP } from 'node:net';
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config';
import type { App } from '../context';
import { ApiError } from '../http/errors';
import { classifyAddress, normalizeHost, type AddressClass } from './outbound-guard';

/**
 * Where callbacks may go, checked when a notification URL is given (CONTRACTS.md, "callback
 * targets"). The delivery worker checks every resolved address again before it connects
 * (outbound-guard.ts); this check at input exists so that a merchant learns of a URL that will never
 * be called when it sends it, not 72 hours of retries later.
 *
 * - live mode refuses, with `07.02.0001` naming the field, a URL whose host is a loopback, private,
 *   link-local, metadata or otherwise non-public address, or a name that only a local network can
 *   resolve (`localhost`, `*.localhost`, `*.local`, `*.internal`, `*.home.arpa`, a name without a dot);
 * - sandbox mode accepts it, with a warning in the answer's `warnings` that says what live mode
 *   would do; loopback (127.0.0.1, localhost, [::1]) is also delivered to in sandbox, so that a
 *   developer's local receiver works without any setting;
 * - a host listed in `COLIBRI_CALLBACK_ALLOW_HOSTS` passes in both modes without a warning.
 *
 * Names that resolve to a private address through public DNS cannot be known without a lookup, and a
 * lookup at input proves nothing about the moment of delivery (DNS answers change); those are refused
 * by the delivery guard, which checks the address it connects to.
 */

/** One warning of an accepted request. */
export interface InputWarning {
  field: string;
  description: string;
}

/** The `warnings` member added to the answers of the routes that take callback URLs. */
export const WarningsSchema = Type.Optional(
  Type.Array(
    Type.Object({
      field: Type.String({ description: 'the request field, in the error notation (payoutTransactions[2].notification_url)' }),
      description: Type.String(),
    }),
    { description: 'Present only when there is something to warn about; sandbox mode only (docs/callbacks.md).' },
  ),
);

/** Host names that public DNS never answers for: RFC 6761 and 6762 names, the private-use TLDs. */
const LOCAL_NAME = /(^|\.)(localhost|local|internal|home\.arpa|localdomain|lan|intranet)$/;

export type TargetVerdict =
  | { kind: 'public' }
  | { kind: 'allowed' }
  /** Not public; `loopback` says whether sandbox delivers to it anyway. */
  | { kind: 'private'; host: string; what: string; loopback: boolean };

/**
 * Classifies a notification URL's host without any lookup.
 * @example classifyTarget('http://[::ffff:7f00:1]/cb', []) // { kind: 'private', what: 'a loopback address', loopback: true, ... }
 * @example classifyTarget('https://shop.example/cb', []) // { kind: 'public' }
 */
export function classifyTarget(url: string, allowHosts: readonly string[]): TargetVerdict {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // The field's own schema reports a malformed URL.
    return { kind: 'public' };
  }
  // The WHATWG parser has already normalised numeric hosts: http://2130706433/ is 127.0.0.1 here.
  const host = normalizeHost(parsed.hostname);
  if (allowHosts.map(normalizeHost).includes(host)) return { kind: 'allowed' };
  if (isIP(host) !== 0) {
    const addressClass: AddressClass = classifyAddress(host);
    if (addressClass === 'public') return { kind: 'public' };
    return { kind: 'private', host, what: describeClass(addressClass), loopback: addressClass === 'loopback' };
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return { kind: 'private', host, what: 'a loopback name', loopback: true };
  if (LOCAL_NAME.test(host) || !host.includes('.')) return { kind: 'private', host, what: 'a name only a local network resolves', loopback: false };
  return { kind: 'public' };
}

function describeClass(addressClass: AddressClass): string {
  const article = addressClass === 'unspecified' || addressClass === 'invalid' ? 'an' : 'a';
  return `${article} ${addressClass} address`;
}

/** A notification URL field of a request: its path in the error notation and its value. */
export interface CallbackField {
  field: string;
  url: string;
}

type FieldReader = (body: Record<string, unknown>) => CallbackField[];

const field = (name: string): FieldReader => (body) => (typeof body[name] === 'string' ? [{ field: name, url: body[name] }] : []);

/**
 * Every request field that takes a callback URL, by route. Redirect URLs of hosted checkout
 * (successUrl, declinedUrl, errorUrl) are not here: the shopper's browser follows them, Colibri
 * never calls them.
 */
export const CALLBACK_URL_FIELDS: Readonly<Record<string, FieldReader>> = {
  'POST /checkout/sendPayment': field('notification_url'),
  'POST /checkout/generate': (body) => [...field('notificationUrl')(body), ...field('checkoutNotificationUrl')(body)],
  'POST /subscriptions': field('notification_url'),
  'POST /refund': field('notification_url'),
  'POST /3ds/authentications': field('notificationUrl'),
  // The merchant's webhook endpoints (endpoint-routes.ts).
  'POST /webhooks/endpoints': field('url'),
  'PATCH /webhooks/endpoints/:id': field('url'),
  'POST /payoutTransaction': (body) => {
    const items = body.payoutTransactions;
    if (!Array.isArray(items)) return [];
    return items.flatMap((item: unknown, i) => {
      const url = item !== null && typeof item === 'object' ? (item as Record<string, unknown>).notification_url : undefined;
      return typeof url === 'string' ? [{ field: `payoutTransactions[${i}].notification_url`, url }] : [];
    });
  },
};

/**
 * Judges a request's callback URLs: in live mode the refusals (one field error each), in sandbox
 * mode the warnings.
 * @example judgeCallbackFields([{ field: 'notification_url', url: 'http://10.0.0.5/cb' }], config)
 */
export function judgeCallbackFields(
  fields: readonly CallbackField[],
  config: Pick<Config, 'mode' | 'callbackAllowHosts'>,
): { refusals: InputWarning[]; warnings: InputWarning[] } {
  const refusals: InputWarning[] = [];
  const warnings: InputWarning[] = [];
  for (const { field: name, url } of fields) {
    const verdict = classifyTarget(url, config.callbackAllowHosts);
    if (verdict.kind !== 'private') continue;
    if (config.mode === 'live') {
      refusals.push({ field: name, description: `${name}: ${verdict.host} is ${verdict.what}; live mode does not send callbacks there (list the host in COLIBRI_CALLBACK_ALLOW_HOSTS to allow it).` });
    } else if (verdict.loopback) {
      warnings.push({ field: name, description: `${name}: ${verdict.host} is ${verdict.what}. Sandbox delivers callbacks to it; live mode refuses it unless the host is in COLIBRI_CALLBACK_ALLOW_HOSTS.` });
    } else {
      warnings.push({ field: name, description: `${name}: ${verdict.host} is ${verdict.what}. Live mode refuses it, and callbacks to it are not delivered unless the host is in COLIBRI_CALLBACK_ALLOW_HOSTS (sandbox delivers to loopback and to listed hosts only).` });
    }
  }
  return { refusals, warnings };
}

/**
 * Checks the callback URLs of every route in CALLBACK_URL_FIELDS after its schema passed, refuses
 * them in live mode, and adds the sandbox warnings to the answer. Each such route's 200 (or 201) answer gains
 * an optional `warnings` member in its schema (and so in the OpenAPI document). Call before the
 * routes are registered.
 * @example installCallbackTargetCheck(app, ctx.config);
 */
export function installCallbackTargetCheck(app: App, config: Pick<Config, 'mode' | 'callbackAllowHosts'>): void {
  const warningsOf = new WeakMap<FastifyRequest, InputWarning[]>();
  const readers = new Map<string, FieldReader>();

  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    const key = methods.map((m) => `${m.toUpperCase()} ${route.url}`).find((k) => CALLBACK_URL_FIELDS[k] !== undefined);
    if (key === undefined) return;
    readers.set(route.url, CALLBACK_URL_FIELDS[key] as FieldReader);
    const response = route.schema?.response as Record<string, { properties?: Record<string, unknown> }> | undefined;
    const ok = response?.['200'] ?? response?.['201'];
    // Added to the answer's schema object itself (optional, so other routes that share it are unchanged):
    // a named schema keeps one shape in the OpenAPI document.
    if (ok?.properties) ok.properties.warnings ??= WarningsSchema;
  });

  app.addHook('preHandler', (request, _reply, done) => {
    const reader = request.routeOptions.url === undefined ? undefined : readers.get(request.routeOptions.url);
    if (!reader || request.body === null || typeof request.body !== 'object') return done();
    const { refusals, warnings } = judgeCallbackFields(reader(request.body as Record<string, unknown>), config);
    if (refusals.length > 0) {
      return done(ApiError.fields(refusals.map((r) => ({ key: 'CALLBACK_TARGET_REFUSED', description: r.description }))));
    }
    if (warnings.length > 0) warningsOf.set(request, warnings);
    done();
  });

  app.addHook('preSerialization', (request, reply, payload, done) => {
    const warnings = warningsOf.get(request);
    if (warnings && reply.statusCode < 300 && payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
      return done(null, { ...(payload as object), warnings });
    }
    done(null, payload);
  });
}
