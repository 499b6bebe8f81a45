// The shopper's browser, played by Node, for the guides that run in a terminal: it loads Colibri's browser
// library from the service, as a checkout page does with <script src="…/scripts/client-v1.0.min.js">, and
// calls Colibri.encryptCard. It prints the encrypted card (a compact JWE that only Colibri can open), or the
// fields the library refused. A real page needs none of the stand-ins below: it has a document and a window.
//
//   node docs/examples/encrypt-card-in-node.mjs BASE_URL CONTRACT_ID NUMBER CVV EXP_MONTH EXP_YEAR HOLDER
//
// Node 20 has the browser's fetch and WebCrypto (crypto.subtle), which are all the library uses.
/* global fetch, window, HTMLScriptElement */
const [base, contractId, number, cvv, expMonth, expYear, holder] = process.argv.slice(2);
if (!holder) {
  console.error('usage: node docs/examples/encrypt-card-in-node.mjs BASE_URL CONTRACT_ID NUMBER CVV EXP_MONTH EXP_YEAR HOLDER');
  process.exit(2);
}
const src = `${base}/scripts/client-v1.0.min.js`;
// The library reads the Colibri origin from its own <script> element: the only place it sends card data to.
globalThis.window = globalThis;
globalThis.HTMLScriptElement = class HTMLScriptElement {
  src = src;
};
globalThis.document = { currentScript: new HTMLScriptElement(), baseURI: base };

const library = await fetch(src);
if (!library.ok) throw new Error(`${src} answered ${library.status}`);
new Function(await library.text())();

window.Colibri.setUp({ env: 'SANDBOX', contractId });
const { hasErrors, encryptedCard, errors } = await window.Colibri.encryptCard({ number, cvv, expMonth, expYear, holder });
if (hasErrors) {
  console.error(JSON.stringify(errors));
  process.exit(1);
}
console.log(encryptedCard);
