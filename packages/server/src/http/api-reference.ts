import swaggerUi from '@fastify/swagger-ui';
import type { App } from '../context';
import { merchantDocument, operatorDocument } from './openapi-documents';
import { withSampleDescriptions } from './openapi-samples';

/**
 * The API reference (docs/conventions.md, "API reference"): the merchant API at `/docs` and
 * `/openapi.json`, the operator and internal API at `/docs/operator` and `/openapi/operator.json`, each
 * a Swagger UI page branded Colibri. The pages load only their own files, under a policy with no
 * `unsafe-inline`: Swagger UI's top bar (whose logo is an SVG with an inline `<style>`) is replaced by
 * Colibri's header, built by `colibri-header.js`.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is free-form JSON.
type Json = Record<string, any>;

/** A hummingbird's circle and the wordmark: Colibri's own mark, drawn here. */
export const COLIBRI_MARK = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32" role="img" aria-label="Colibri"><circle cx="16" cy="16" r="15" fill="#0b5cd6"/><path d="M7 19c4-1 7-4 9-8 1 3 4 5 9 5-3 1-6 3-8 6l-2-3-8 0z" fill="#fff"/><circle cx="19" cy="13" r="1.3" fill="#0b5cd6"/></svg>`;

const PAGE_CSP = [
  "default-src 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self'",
  "connect-src 'self'",
].join('; ');

const HEADER_CSS = `
body { margin: 0; }
.colibri-top { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1.25rem; padding: 0.75rem 1.25rem; background: #0b2e63; color: #fff; font-family: system-ui, sans-serif; }
.colibri-top .mark { display: flex; align-items: center; gap: 0.5rem; font-size: 1.25rem; font-weight: 800; color: #fff; text-decoration: none; }
.colibri-top nav { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
.colibri-top nav a { color: #dbe9ff; text-decoration: underline; }
.colibri-top nav a[aria-current="page"] { color: #fff; font-weight: 700; text-decoration: none; }
.swagger-ui .info .title small pre { background: none; }
.swagger-ui .opblock-description-wrapper pre, .swagger-ui .opblock-description-wrapper code { white-space: pre-wrap; word-break: break-word; }
`;

/** Colibri's header over the page: its mark, which reference this is, and the way to the other one. */
const HEADER_JS = `(function () {
  var operator = /\\/docs\\/operator\\/?$/.test(location.pathname);
  var header = document.createElement('header');
  header.className = 'colibri-top';
  var home = document.createElement('a');
  home.className = 'mark';
  home.href = '/docs';
  var img = document.createElement('img');
  img.src = '${`data:image/svg+xml;base64,${Buffer.from(COLIBRI_MARK).toString('base64')}`}';
  img.alt = '';
  img.width = 32;
  img.height = 32;
  home.appendChild(img);
  home.appendChild(document.createTextNode('Colibri API reference'));
  header.appendChild(home);
  var nav = document.createElement('nav');
  nav.setAttribute('aria-label', 'API references');
  [['/docs', 'Payments API', !operator], ['/openapi.json', 'openapi.json', false], ['/docs/operator', 'Operator and internal API', operator], ['/openapi/operator.json', 'operator.json', false]].forEach(function (link) {
    var a = document.createElement('a');
    a.href = link[0];
    a.textContent = link[1];
    if (link[2]) a.setAttribute('aria-current', 'page');
    nav.appendChild(a);
  });
  header.appendChild(nav);
  document.body.insertBefore(header, document.body.firstChild);
  document.documentElement.lang = 'en';
})();`;

/**
 * Registers both references and their documents. The documents are cut once from the one the routes
 * describe (`app.swagger()`), on first use.
 * @example await registerApiReference(app);
 */
export async function registerApiReference(app: App): Promise<void> {
  let documents: { merchant: Json; operator: Json; merchantPage: Json; operatorPage: Json } | undefined;
  const load = () => {
    if (!documents) {
      const full = app.swagger() as Json;
      const merchant = merchantDocument(full);
      const operator = operatorDocument(full);
      documents = { merchant, operator, merchantPage: withSampleDescriptions(merchant), operatorPage: withSampleDescriptions(operator) };
    }
    return documents;
  };
  const page = (title: string, routePrefix: string, spec: () => Json) =>
    app.register(async (docs) => {
      // The API reference is public; its routes come from the plugin, so mark them as they are added.
      docs.addHook('onRoute', (route) => {
        route.config = { ...(route.config as object), auth: 'public' };
      });
      await docs.register(swaggerUi, {
        routePrefix,
        // No top bar: Colibri's header (HEADER_JS) stands in its place.
        uiConfig: { deepLinking: true, layout: 'BaseLayout', defaultModelsExpandDepth: 0, tryItOutEnabled: false },
        // null, not left out: left out, the plugin would load Swagger's own logo (the types allow only an object).
        logo: null as never,
        theme: {
          title,
          css: [{ filename: 'colibri.css', content: HEADER_CSS }],
          js: [{ filename: 'colibri-header.js', content: HEADER_JS }],
          favicon: [{ filename: 'colibri.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(COLIBRI_MARK) }],
        },
        staticCSP: PAGE_CSP,
        transformSpecification: () => spec(),
        transformSpecificationClone: false,
        logLevel: 'warn',
      });
    });
  await page('Colibri payments API reference', '/docs', () => load().merchantPage);
  await page('Colibri operator and internal API reference', '/docs/operator', () => load().operatorPage);
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => load().merchant);
  app.get('/openapi/operator.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => load().operator);
}
