import type { InstallmentOption } from '../fees/installments';
import type { CheckoutRow } from '../checkout/checkout-record';
import type { CheckoutMethod } from '../checkout/states';
import { pageAssets } from './assets';
import { renderBoletoPayerForm } from './boleto-payer-form';
import { formatMoney, LANGS, LANGUAGE_NAMES, messages, type Lang, type Messages } from './i18n';
import { acceptedBrands, BADGE_TYPES, brandBadge, brandTableJson, methodIcon } from './page-icons';

/** What a page shows, decided by build-page.ts. */
export type PageView =
  | { kind: 'final'; outcome: 'PAID' | 'CANCELED' | 'EXPIRED' | 'ERROR'; redirectUrl: string | null }
  | { kind: 'choose'; failedBefore: boolean; boletoPayerAsked?: boolean }
  | { kind: 'boleto-payer' }
  | { kind: 'card'; method: 'CREDITCARD' | 'DEBITCARD'; failedBefore: boolean; installments: readonly InstallmentOption[]; currentMonth: string }
  | { kind: 'processing' }
  | { kind: 'pix'; brCode: string; qrSvg: string; secondsLeft: number }
  | { kind: 'boleto'; digitableLine: string; formattedLine: string; barcode: string; barcodeSvg: string; dueDate: string; compensating: boolean; pix?: { brCode: string; qrSvg: string } | null }
  | { kind: 'voucher'; network: 'OXXO' | 'PAYNET'; reference: string; barcodeSvg: string; secondsLeft: number }
  | { kind: 'spei'; clabe: string; reference: string; secondsLeft: number }
  | { kind: 'picpay'; deepLink: string; qrSvg: string; secondsLeft: number };

export interface PageModel {
  readonly lang: Lang;
  readonly session: CheckoutRow;
  readonly merchantName: string;
  /** What the customer pays (amount and customer fees), in cents of `currency`. */
  readonly chargeMinor: bigint;
  /** BRL or MXN: the session's payment currency. */
  readonly currency: string;
  /** Sandbox pages carry a visible badge, so nobody mistakes them for a real payment. */
  readonly sandbox: boolean;
  /** Changes when the page should be redrawn; the script compares it with the status endpoint's. */
  readonly version: string;
  readonly view: PageView;
}

/** Escapes text for HTML content and double-quoted attributes. @example escapeHtml('<a "b">') // '&lt;a &quot;b&quot;&gt;' */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const e = escapeHtml;

/**
 * Renders the whole page as one HTML string: no template engine, no client framework, everything the
 * customer needs in the first response (QR code and barcode inline as SVG), one small script and one
 * style sheet from our origin. Works at 320 px wide and prints the boleto cleanly.
 * @example const html = renderPage(model);
 */
export function renderPage(model: PageModel): string {
  const t = messages(model.lang);
  const { script, style } = pageAssets();
  const id = model.session.checkout_id;
  // The page's own address names its language, so a reload or a redirect keeps the one shown.
  const pageUrl = `/pay/${id}?lang=${model.lang}`;
  const otherLangs = LANGS.filter((l) => l !== model.lang)
    .map((l) => `<a class="lang no-print" href="/pay/${e(id)}?lang=${l}" lang="${LANGUAGE_NAMES[l].tag}" hreflang="${LANGUAGE_NAMES[l].tag}">${e(LANGUAGE_NAMES[l].name)}</a>`)
    .join('\n');
  const final = model.view.kind === 'final';
  const bodyData = [
    `data-version="${e(model.version)}"`,
    `data-page-url="${e(pageUrl)}"`,
    final ? '' : `data-status-url="/pay/${id}/status"`,
    `data-attempts-url="/pay/${id}/attempts"`,
    `data-card-url="/pay/${id}/card"`,
    `data-debit-url="/pay/${id}/debit"`,
    `data-contract-id="${e(model.session.contract_id)}"`,
    `data-reference-id="${e(model.session.reference_id)}"`,
    `data-amount-minor="${model.chargeMinor}"`,
    `data-sandbox="${model.sandbox ? 'true' : 'false'}"`,
    `data-lang="${model.lang}"`,
    model.view.kind === 'final' && model.view.redirectUrl ? `data-redirect="${e(model.view.redirectUrl)}"` : '',
  ]
    .filter((a) => a !== '')
    .join(' ');
  const i18n = (
    [
      'copied', 'luhnInvalid', 'expiryInvalid', 'cvvInvalid', 'required', 'processing', 'submitFailed', 'phoneInvalid', 'authenticating', 'authFailed',
      'brandNotAccepted', 'taxIdInvalid', 'expiryMonthInvalid', 'cardExpired', 'fieldRequired', 'errorSummaryTitle',
    ] as const
  )
    .map((k) => `data-${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}="${e(t[k])}"`)
    .join(' ');

  return `<!doctype html>
<html lang="${t.htmlLang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(t.title)} · ${e(model.merchantName)}</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<link rel="stylesheet" href="${style.path}" integrity="${style.integrity}">
<script src="${script.path}" integrity="${script.integrity}" defer></script>
</head>
<body ${bodyData}>
${model.sandbox ? `<p class="sandbox-badge no-print" data-sandbox-badge>${e(t.sandboxBadge)}</p>` : ''}
<main>
<header>
<nav class="langs no-print" aria-label="${e(t.languages)}">${otherLangs}</nav>
${renderSummary(model, t)}
</header>
${model.view.kind === 'card' ? '' : ERROR_SUMMARY}
${renderView(model, t, pageUrl)}
<div id="i18n" hidden ${i18n}></div>
</main>
</body>
</html>
`;
}

/**
 * Where the page's errors are listed, filled by its script: above the pay button (the card form holds
 * it) or above the method buttons, focused when a submit fails so that it is read and seen first.
 */
const ERROR_SUMMARY = '<div id="form-errors" class="errors no-print" role="alert" tabindex="-1"></div>';

/**
 * The order summary at the top of every page: the merchant (its initial as a badge, and its name), the
 * merchant's order reference and what the customer pays.
 */
function renderSummary(model: PageModel, t: Messages): string {
  const initial = Array.from(model.merchantName.trim())[0]?.toUpperCase() ?? '·';
  return `<section class="summary" aria-label="${e(t.orderSummary)}">
<span class="monogram" aria-hidden="true">${e(initial)}</span>
<div class="summary-text">
<p class="merchant">${e(t.payTo)} <strong>${e(model.merchantName)}</strong></p>
<p class="order-ref">${e(t.orderReference)} <span data-order-reference>${e(model.session.reference_id)}</span></p>
</div>
<p class="amount"><span class="visually-hidden">${e(t.amount)}: </span>${e(formatMoney(model.chargeMinor, model.lang, model.currency))}</p>
</section>`;
}

/** A method of the selection screen: its icon, its name and a hint of how it pays. */
function methodContent(m: CheckoutMethod, t: Messages): string {
  return `${methodIcon(m)}<span class="method-text"><span class="method-name">${e(t[m])}</span><span class="method-hint">${e(t[`hint${m}`])}</span></span>`;
}

function renderView(model: PageModel, t: Messages, pageUrl: string): string {
  const view = model.view;
  const multi = model.session.mode === 'MULTI';
  const sep = pageUrl.includes('?') ? '&' : '?';
  const otherMethod = multi ? `<a class="button secondary no-print" href="${e(`${pageUrl}${sep}choose=1`)}">${e(t.otherMethod)}</a>` : '';
  switch (view.kind) {
    case 'final': {
      const titles = {
        PAID: [t.paidTitle, t.paidText],
        CANCELED: [t.canceledTitle, t.canceledText],
        EXPIRED: [t.expiredTitle, t.expiredText],
        ERROR: [t.errorTitle, t.errorText],
      } as const;
      const [title, text] = titles[view.outcome];
      const link = view.redirectUrl
        ? `<p>${e(t.redirecting)}</p><a class="button" href="${e(view.redirectUrl)}">${e(t.backToShop)}</a>`
        : '';
      return `<section class="final ${view.outcome === 'PAID' ? 'paid' : 'failed'}" data-final="${view.outcome}">
<div role="status"><h1>${e(title)}</h1>
<p>${e(text)}</p></div>
${link}
</section>`;
    }
    case 'choose':
      return `<section data-view="choose">
<h1>${e(t.chooseMethod)}</h1>
${view.failedBefore ? `<p class="notice" role="status">${e(t.declinedRetry)}</p>` : ''}
${(model.session.methods as CheckoutMethod[])
  .map((m) =>
    m === 'CREDITCARD' || m === 'DEBITCARD' || (m === 'BOLETO' && view.boletoPayerAsked)
      ? `<a class="button method" href="${e(`${pageUrl}${sep}method=${m}`)}" data-method="${m}">${methodContent(m, t)}</a>`
      : `<button type="button" class="method" data-start-method="${m}">${methodContent(m, t)}</button>`,
  )
  .join('\n')}
</section>`;
    case 'processing':
      return `<section data-view="processing">
<div role="status"><h1 class="status">${e(t.processing)}</h1></div>
</section>`;
    case 'pix':
      return `<section data-view="pix">
<h1>${e(t.PIX)}</h1>
<p>${e(t.pixInstructions)}</p>
<div class="pix-pay">
<div class="pix-code">
<label for="br-code">${e(t.pixCodeLabel)}</label>
<textarea id="br-code" rows="4" readonly>${e(view.brCode)}</textarea>
<button type="button" data-copy-target="br-code">${e(t.copy)}</button>
<p id="copy-status" role="status" aria-live="polite"></p>
</div>
<div class="qr" role="img" aria-label="${e(t.pixQrLabel)}">${view.qrSvg}</div>
</div>
<p>${e(t.expiresIn)} <strong><span data-seconds-left="${view.secondsLeft}" aria-live="off">—</span></strong></p>
<p class="status" role="status" aria-live="polite">${e(t.waiting)}</p>
${otherMethod}
</section>`;
    case 'boleto':
      return `<section data-view="boleto">
<h1>${e(t.BOLETO)}</h1>
<p class="no-print">${e(t.boletoInstructions)}</p>
<p><strong>${e(t.dueDate)}:</strong> <span data-due-date="${e(view.dueDate)}">${e(formatDueDate(view.dueDate, model.lang))}</span></p>
<label for="digitable-line">${e(t.digitableLine)}</label>
<textarea id="digitable-line" rows="2" readonly data-digits="${e(view.digitableLine)}">${e(view.formattedLine)}</textarea>
<button type="button" class="no-print" data-copy-target="digitable-line">${e(t.copy)}</button>
<p id="copy-status" role="status" aria-live="polite" class="no-print"></p>
<div class="barcode" role="img" aria-label="${e(t.barcodeLabel)}" data-barcode="${e(view.barcode)}">${view.barcodeSvg}</div>
${view.pix ? `<div data-view="boleto-pix">
<h2>${e(t.PIX)}</h2>
<p>${e(t.pixInstructions)}</p>
<div class="qr" role="img" aria-label="${e(t.pixQrLabel)}">${view.pix.qrSvg}</div>
<label for="br-code">${e(t.pixCodeLabel)}</label>
<textarea id="br-code" rows="4" readonly>${e(view.pix.brCode)}</textarea>
<button type="button" class="no-print" data-copy-target="br-code">${e(t.copy)}</button>
</div>` : ''}
<button type="button" class="secondary no-print" data-print>${e(t.print)}</button>
<p class="status no-print" role="status" aria-live="polite">${e(view.compensating ? t.compensating : t.waiting)}</p>
${view.compensating ? '' : otherMethod}
</section>`;
    case 'voucher':
      return `<section data-view="voucher" data-network="${view.network}">
<h1>${e(t[view.network])}</h1>
<p>${e(t.voucherInstructions)}</p>
<label for="voucher-reference">${e(t.voucherReference)}</label>
<input id="voucher-reference" readonly value="${e(view.reference)}" data-reference="${e(view.reference)}">
<button type="button" class="no-print" data-copy-target="voucher-reference">${e(t.copy)}</button>
<p id="copy-status" role="status" aria-live="polite" class="no-print"></p>
<div class="barcode" role="img" aria-label="${e(t.barcodeLabel)}">${view.barcodeSvg}</div>
<p>${e(t.expiresIn)} <strong><span data-seconds-left="${view.secondsLeft}" aria-live="off">—</span></strong></p>
<button type="button" class="secondary no-print" data-print>${e(t.printVoucher)}</button>
<p class="status no-print" role="status" aria-live="polite">${e(t.waiting)}</p>
${otherMethod}
</section>`;
    case 'spei':
      return `<section data-view="spei">
<h1>${e(t.SPEI)}</h1>
<p>${e(t.speiInstructions)}</p>
<label for="spei-clabe">CLABE</label>
<input id="spei-clabe" readonly value="${e(view.clabe)}" data-clabe="${e(view.clabe)}">
<button type="button" data-copy-target="spei-clabe">${e(t.copy)}</button>
<p id="copy-status" role="status" aria-live="polite"></p>
<p><strong>${e(t.speiReference)}:</strong> <span data-spei-reference>${e(view.reference)}</span></p>
<p>${e(t.expiresIn)} <strong><span data-seconds-left="${view.secondsLeft}" aria-live="off">—</span></strong></p>
<p class="status" role="status" aria-live="polite">${e(t.waiting)}</p>
${otherMethod}
</section>`;
    case 'picpay':
      return `<section data-view="picpay">
<h1>${e(t.PICPAY)}</h1>
<p>${e(t.picpayInstructions)}</p>
<div class="qr" role="img" aria-label="${e(t.picpayQrLabel)}">${view.qrSvg}</div>
<a class="button" href="${e(view.deepLink)}" data-deep-link>${e(t.picpayOpen)}</a>
<p>${e(t.expiresIn)} <strong><span data-seconds-left="${view.secondsLeft}" aria-live="off">—</span></strong></p>
<p class="status" role="status" aria-live="polite">${e(t.waiting)}</p>
${otherMethod}
</section>`;
    case 'card':
      return renderCardForm(model, t, view, otherMethod);
    case 'boleto-payer':
      return renderBoletoPayerForm(model.lang, t.BOLETO, otherMethod, e);
  }
}

function renderCardForm(model: PageModel, t: Messages, view: Extract<PageView, { kind: 'card' }>, otherMethod: string): string {
  const { method, failedBefore } = view;
  // The merchant's installment plan (fees/installments.ts): "3x de R$ 34,00 sem juros", "10x de R$ 111,27 com juros".
  const options = view.installments
    .map((o) => {
      const each = formatMoney(o.installments === 1 ? o.totalMinor : o.installmentMinor, model.lang, model.currency);
      const base = t.installmentOption.replace('{n}', String(o.installments)).replace('{amount}', each);
      const total = formatMoney(o.totalMinor, model.lang, model.currency);
      const label =
        o.installments === 1
          ? base
          : o.interestFree
            ? `${base} ${t.installmentInterestFree}`
            : `${base} ${t.installmentWithInterest} ${t.installmentTotal.replace('{amount}', total)}`;
      // The pay button says what this option costs in all (the script sets it when the option changes).
      return `<option value="${o.installments}" data-pay-label="${e(`${t.pay} ${total}`)}">${e(label)}</option>`;
    })
    .join('');
  const debit = method === 'DEBITCARD';
  // A debit card pays at once (no installments) and authenticates with 3DS; its phone is what the
  // issuer sends the one-time code to.
  const installments = debit
    ? ''
    : `<label for="installments">${e(t.installments)}</label>
<select id="installments" name="installments">${options}</select>`;
  const phone = debit
    ? `<label for="phone">${e(t.phone)}</label>
<input id="phone" name="phone" type="tel" inputmode="tel" autocomplete="tel-national" required maxlength="20" placeholder="11 91234-5678">`
    : '';
  return `<section data-view="card" data-card-method="${method}">
<h1>${e(t[method])}</h1>
${failedBefore ? `<p class="notice" role="status">${e(t.declinedRetry)}</p>` : ''}
<form id="card-form" novalidate autocomplete="on" data-card-method="${method}" data-current-month="${e(view.currentMonth)}">
<fieldset>
<legend>${e(t.payerSection)}</legend>
<label for="name">${e(t.name)}</label>
<input id="name" name="name" autocomplete="name" required maxlength="200">
<label for="email">${e(t.email)}</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254">
<label for="tax_id">${e(t.taxId)}</label>
<input id="tax_id" name="tax_id" inputmode="numeric" required maxlength="18">
${phone}
</fieldset>
<fieldset>
<legend>${e(t.cardSection)}</legend>
${acceptedBrands(t.brandsAccepted)}
<label for="number">${e(t.cardNumber)}</label>
<div class="number-field">
<input id="number" name="number" inputmode="numeric" autocomplete="cc-number" required maxlength="23" aria-describedby="card-scheme" data-brands="${e(brandTableJson())}">
<span class="brand-slot">${BADGE_TYPES.map((type) => brandBadge(type).replace('<svg ', '<svg hidden ')).join('')}</span>
</div>
<p id="card-scheme" class="scheme-out" aria-live="polite"></p>
<div class="row expiry-cvv">
<div><label for="expiry">${e(t.expiry)}</label><input id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="${e(t.expiryPlaceholder)}" required maxlength="7"></div>
<div><label for="cvv">${e(t.cvv)}</label><input id="cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" required maxlength="4"></div>
</div>
<label for="holder_name">${e(t.holder)}</label>
<input id="holder_name" name="holder_name" autocomplete="cc-name" required maxlength="100">
${installments}
</fieldset>
<div id="three-ds-frame" class="three-ds" hidden></div>
${ERROR_SUMMARY}
<button type="submit">${e(t.pay)} ${e(formatMoney(model.chargeMinor, model.lang, model.currency))}</button>
<p id="form-status" class="status" role="status" aria-live="polite"></p>
</form>
${otherMethod}
</section>`;
}

/** @example formatDueDate('2026-03-10', 'pt') // '10/03/2026' (and so in Spanish) */
export function formatDueDate(isoDate: string, lang: Lang): string {
  const [y, m, d] = isoDate.split('-');
  return lang === 'en' ? isoDate : `${d}/${m}/${y}`;
}
