import { cardBrands } from '../rails/cards';
import type { CheckoutMethod } from '../checkout/states';

/**
 * The checkout page's pictures, drawn here as small inline SVGs (the page's CSP allows no other image
 * source but data: URLs, and inline SVG needs no request): an icon per payment method and a badge per
 * card brand. The badges are neutral labelled cards in a colour of their own, not the brands' logos.
 * Everything is presentation attributes, no `style`, which the CSP (style-src 'self') would refuse.
 */

/** Our own strings and the library's brand names, escaped all the same for an attribute. */
function attr(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

const METHOD_PATHS: Readonly<Record<CheckoutMethod, string>> = {
  // A lightning bolt: instant.
  PIX: '<path d="M13 2 4 14h6l-1 8 9-12h-6l1-8z" fill="currentColor"/>',
  // A barcode.
  BOLETO: '<path d="M3 5h2v14H3zm3 0h1v14H6zm2 0h2v14H8zm3 0h1v14h-1zm3 0h2v14h-2zm3 0h1v14h-1zm2 0h2v14h-2z" fill="currentColor"/>',
  // A card with its magnetic stripe.
  CREDITCARD: '<rect x="2" y="5" width="20" height="14" rx="2" fill="none" stroke="currentColor" stroke-width="2"/><path d="M2 9h20v3H2z" fill="currentColor"/>',
  DEBITCARD: '<rect x="2" y="5" width="20" height="14" rx="2" fill="none" stroke="currentColor" stroke-width="2"/><path d="M5 15h6v2H5z" fill="currentColor"/>',
  // A phone.
  PICPAY: '<rect x="6" y="2" width="12" height="20" rx="2" fill="none" stroke="currentColor" stroke-width="2"/><path d="M10 18h4v1.5h-4z" fill="currentColor"/>',
  // A shop front.
  OXXO: '<path d="M3 10h18v10H3z" fill="none" stroke="currentColor" stroke-width="2"/><path d="M2 4h20l-1 6H3z" fill="currentColor"/><path d="M10 14h4v6h-4z" fill="currentColor"/>',
  PAYNET: '<path d="M3 10h18v10H3z" fill="none" stroke="currentColor" stroke-width="2"/><path d="M2 4h20l-1 6H3z" fill="currentColor"/><path d="M10 14h4v6h-4z" fill="currentColor"/>',
  // Two arrows: a transfer.
  SPEI: '<path d="M4 8h13l-3-3 1.4-1.4L21 9l-5.6 5.4L14 13l3-3H4zm16 8H7l3 3-1.4 1.4L3 15l5.6-5.4L10 11l-3 3h13z" fill="currentColor"/>',
};

/** A method's icon, decorative (the button says the method's name). @example methodIcon('PIX') // '<svg …' */
export function methodIcon(method: CheckoutMethod): string {
  return `<svg class="method-icon" viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false">${METHOD_PATHS[method]}</svg>`;
}

/** The badge of each brand the page draws: its label and colour (white text on it, at least 4.5:1). */
const BADGES: Readonly<Record<string, { label: string; fill: string }>> = {
  visa: { label: 'VISA', fill: '#1a1f71' },
  mastercard: { label: 'MASTER', fill: '#a4161a' },
  elo: { label: 'elo', fill: '#1a1a1a' },
  'american-express': { label: 'AMEX', fill: '#0b5cab' },
  'diners-club': { label: 'DINERS', fill: '#3d4450' },
  discover: { label: 'DISCOVER', fill: '#8a3b00' },
  jcb: { label: 'JCB', fill: '#05603a' },
  hipercard: { label: 'HIPERCARD', fill: '#8c1c13' },
  hiper: { label: 'HIPER', fill: '#5a2d82' },
};

/**
 * A brand's badge, a 40×26 card with its name on it. `label` makes it an image with that name
 * (in the list of accepted brands); without it the badge is decorative (the live text beside the card
 * number says the brand).
 * @example brandBadge('hipercard', 'Hipercard') // '<svg … aria-label="Hipercard">…HIPERCARD…</svg>'
 */
export function brandBadge(type: string, label?: string): string {
  const badge = BADGES[type];
  if (!badge) return '';
  const a11y = label ? `role="img" aria-label="${attr(label)}"` : 'aria-hidden="true" focusable="false"';
  const fit = badge.label.length > 5 ? ` textLength="32" lengthAdjust="spacingAndGlyphs"` : '';
  return `<svg class="brand" data-brand="${type}" viewBox="0 0 40 26" width="40" height="26" ${a11y}><rect width="40" height="26" rx="4" fill="${badge.fill}"/><text x="20" y="17" fill="#fff" font-family="system-ui, sans-serif" font-size="9" font-weight="700" text-anchor="middle"${fit}>${badge.label}</text></svg>`;
}

/**
 * The brands the vault processes, as a list of badges named `label` ("Bandeiras aceitas").
 * @example acceptedBrands('Accepted cards') // '<ul class="brands" aria-label="Accepted cards"><li><svg … aria-label="Visa">…'
 */
export function acceptedBrands(label: string): string {
  const items = cardBrands()
    .filter((b) => b.scheme !== null)
    .map((b) => `<li>${brandBadge(b.type, b.name)}</li>`);
  return `<ul class="brands" aria-label="${attr(label)}">${items.join('')}</ul>`;
}

/** The types of the brands the page can draw a badge for. */
export const BADGE_TYPES: readonly string[] = Object.keys(BADGES);

/**
 * The brand table the page's script detects brands with, as compact JSON for a data attribute:
 * `[type, name, scheme or null, patterns]` per brand, Colibri's schemes first. It is the vault's own table
 * (rails/cards `cardBrands`), so the page names the brand the server will find.
 * @example JSON.parse(brandTableJson())[0] // ['visa', 'Visa', 'VISA', [4]]
 */
export function brandTableJson(): string {
  return JSON.stringify(cardBrands().map((b) => [b.type, b.name, b.scheme, b.patterns]));
}
