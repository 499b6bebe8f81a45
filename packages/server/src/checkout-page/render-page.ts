import type { CheckoutRow } from '../checkout/checkout-record';
import type { CheckoutMethod } from '../checkout/states';
import { pageAssets } from './assets';
import { formatMoney, messages, type Lang, type Messages } from './i18n';

/** What a page shows, decided by build-page.ts. */
export type PageView =
  | { kind: 'final'; outcome: 'PAID' | 'CANCELED' | 'EXPIRED' | 'ERROR'; redirectUrl: string | null }
  | { kind: 'choose'; failedBefore: boolean }
  | { kind: 'card'; failedBefore: boolean }
  | { kind: 'processing' }
  | { kind: 'pix'; brCode: string; qrSvg: string; secondsLeft: number }
  | { kind: 'boleto'; digitableLine: string; formattedLine: string; barcode: string; barcodeSvg: string; dueDate: string; secondsLeft: number };

export interface PageModel {
  readonly lang: Lang;
  readonly session: CheckoutRow;
  readonly merchantName: string;
  /** What the customer pays (amount and customer fees), in BRL cents. */
  readonly chargeMinor: bigint;
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
  const langQuery = model.lang === 'en' ? '?lang=en' : '';
  const pageUrl = `/pay/${id}${langQuery}`;
  const otherLang = model.lang === 'en' ? `/pay/${id}` : `/pay/${id}?lang=en`;
  const final = model.view.kind === 'final';
  const bodyData = [
    `data-version="${e(model.version)}"`,
    `data-page-url="${e(pageUrl)}"`,
    final ? '' : `data-status-url="/pay/${id}/status"`,
    `data-attempts-url="/pay/${id}/attempts"`,
    `data-card-url="/pay/${id}/card"`,
    model.view.kind === 'final' && model.view.redirectUrl ? `data-redirect="${e(model.view.redirectUrl)}"` : '',
  ]
    .filter((a) => a !== '')
    .join(' ');
  const i18n = (['copied', 'luhnInvalid', 'expiryInvalid', 'cvvInvalid', 'required', 'processing', 'submitFailed'] as const)
    .map((k) => `data-${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}="${e(t[k])}"`)
    .join(' ');

  return `<!doctype html>
<html lang="${t.htmlLang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(t.title)} · ${e(model.merchantName)}</title>
<link rel="stylesheet" href="${style.path}" integrity="${style.integrity}">
<script src="${script.path}" integrity="${script.integrity}" defer></script>
</head>
<body ${bodyData}>
<main>
<header>
<a class="lang no-print" href="${e(otherLang)}" lang="${model.lang === 'en' ? 'pt-BR' : 'en'}">${e(t.language)}</a>
<p class="merchant">${e(t.payTo)} <strong>${e(model.merchantName)}</strong></p>
<p class="amount"><span class="visually-hidden">${e(t.amount)}: </span>${e(formatMoney(model.chargeMinor, model.lang))}</p>
</header>
${renderView(model, t, pageUrl)}
<p id="form-errors" class="errors no-print" role="alert"></p>
<div id="i18n" hidden ${i18n}></div>
</main>
</body>
</html>
`;
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
    m === 'CREDITCARD'
      ? `<a class="button" href="${e(`${pageUrl}${sep}method=CREDITCARD`)}" data-method="CREDITCARD">${e(t.CREDITCARD)}</a>`
      : `<button type="button" data-start-method="${m}">${e(t[m])}</button>`,
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
<div class="qr" role="img" aria-label="${e(t.pixQrLabel)}">${view.qrSvg}</div>
<label for="br-code">${e(t.pixCodeLabel)}</label>
<textarea id="br-code" rows="4" readonly>${e(view.brCode)}</textarea>
<button type="button" data-copy-target="br-code">${e(t.copy)}</button>
<p id="copy-status" role="status" aria-live="polite"></p>
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
<button type="button" class="secondary no-print" data-print>${e(t.print)}</button>
<p class="status no-print" role="status" aria-live="polite">${e(t.waiting)}</p>
${otherMethod}
</section>`;
    case 'card':
      return renderCardForm(model, t, view.failedBefore, otherMethod);
  }
}

function renderCardForm(model: PageModel, t: Messages, failedBefore: boolean, otherMethod: string): string {
  const options = Array.from({ length: 12 }, (_, i) => {
    const n = BigInt(i + 1);
    const each = formatMoney(model.chargeMinor / n, model.lang);
    return `<option value="${i + 1}">${e(t.installmentOption.replace('{n}', String(i + 1)).replace('{amount}', each))}</option>`;
  }).join('');
  return `<section data-view="card">
<h1>${e(t.CREDITCARD)}</h1>
${failedBefore ? `<p class="notice" role="status">${e(t.declinedRetry)}</p>` : ''}
<form id="card-form" novalidate autocomplete="on">
<fieldset>
<legend>${e(t.payerSection)}</legend>
<label for="name">${e(t.name)}</label>
<input id="name" name="name" autocomplete="name" required maxlength="200">
<label for="email">${e(t.email)}</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254">
<label for="tax_id">${e(t.taxId)}</label>
<input id="tax_id" name="tax_id" inputmode="numeric" required maxlength="18">
</fieldset>
<fieldset>
<legend>${e(t.cardSection)}</legend>
<label for="number">${e(t.cardNumber)}</label>
<input id="number" name="number" inputmode="numeric" autocomplete="cc-number" required maxlength="23" aria-describedby="card-scheme">
<p id="card-scheme" class="scheme-out" aria-live="polite"></p>
<div class="row">
<div><label for="expiry">${e(t.expiry)}</label><input id="expiry" name="expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/AA" required maxlength="7"></div>
<div><label for="cvv">${e(t.cvv)}</label><input id="cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" required maxlength="4"></div>
</div>
<label for="holder_name">${e(t.holder)}</label>
<input id="holder_name" name="holder_name" autocomplete="cc-name" required maxlength="100">
<label for="installments">${e(t.installments)}</label>
<select id="installments" name="installments">${options}</select>
</fieldset>
<button type="submit">${e(t.pay)} ${e(formatMoney(model.chargeMinor, model.lang))}</button>
<p id="form-status" class="status" role="status" aria-live="polite"></p>
</form>
${otherMethod}
</section>`;
}

/** @example formatDueDate('2026-03-10', 'pt') // '10/03/2026' */
export function formatDueDate(isoDate: string, lang: Lang): string {
  const [y, m, d] = isoDate.split('-');
  return lang === 'en' ? isoDate : `${d}/${m}/${y}`;
}
