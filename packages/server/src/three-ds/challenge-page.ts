import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { formatAmount } from '../lib/money';
import { CHALLENGE_PASS_CODE } from './directory-server';
import { isUuid } from '../lib/identifiers';

/**
 * The challenge page's words. English by default (the library frames it over any merchant's page);
 * `?lang=pt` gives Portuguese and `?lang=es` Spanish, which the hosted checkout asks for when its own
 * page speaks them, so the customer never switches language in the middle of paying.
 */
const CHALLENGE_TEXT = {
  en: {
    htmlLang: 'en',
    title: 'Card authentication',
    heading: 'Confirm your purchase',
    merchant: 'Merchant',
    amount: 'Amount',
    card: 'Card',
    codeLabel: 'Code sent to your phone',
    confirm: 'Confirm',
    hint: `Sandbox: the code ${CHALLENGE_PASS_CODE} passes; any other code fails.`,
    answered: 'This authentication was already answered.',
    failedToComplete: 'The authentication could not be completed.',
    authenticated: 'Authenticated. Returning to the store…',
    wrongCode: 'The code is not correct. Authentication failed.',
  },
  pt: {
    htmlLang: 'pt-BR',
    title: 'Autenticação do cartão',
    heading: 'Confirme a sua compra',
    merchant: 'Loja',
    amount: 'Valor',
    card: 'Cartão',
    codeLabel: 'Código enviado ao seu celular',
    confirm: 'Confirmar',
    hint: `Sandbox: o código ${CHALLENGE_PASS_CODE} é aceito; qualquer outro falha.`,
    answered: 'Esta autenticação já foi respondida.',
    failedToComplete: 'Não foi possível concluir a autenticação.',
    authenticated: 'Autenticado. Voltando à loja…',
    wrongCode: 'O código não está correto. A autenticação falhou.',
  },
  es: {
    htmlLang: 'es-MX',
    title: 'Autenticación de la tarjeta',
    heading: 'Confirma tu compra',
    merchant: 'Comercio',
    amount: 'Monto',
    card: 'Tarjeta',
    codeLabel: 'Código enviado a tu celular',
    confirm: 'Confirmar',
    hint: `Sandbox: el código ${CHALLENGE_PASS_CODE} se acepta; cualquier otro falla.`,
    answered: 'Esta autenticación ya fue respondida.',
    failedToComplete: 'No se pudo completar la autenticación.',
    authenticated: 'Autenticado. Volviendo a la tienda…',
    wrongCode: 'El código no es correcto. La autenticación falló.',
  },
} as const;

export type ChallengeLang = keyof typeof CHALLENGE_TEXT;

/** @example challengeLangOf('es-MX') // 'es' */
export function challengeLangOf(value: unknown): ChallengeLang {
  if (value === 'pt' || value === 'pt-BR') return 'pt';
  if (value === 'es' || value === 'es-MX') return 'es';
  return 'en';
}

/** A challenge page: its HTML and the Content-Security-Policy it must be sent with. */
export interface ChallengePage {
  readonly html: string;
  readonly contentSecurityPolicy: string;
}

/**
 * The simulated issuer's challenge page (`GET /3ds/challenges/<id>`), shown by the library in an
 * iframe over the merchant's page. It asks for the one-time code, sends it to its own origin, and
 * reports the result to the merchant's page by postMessage addressed to that page's origin only (the
 * origin recorded when the authentication started), so no other page can read it.
 *
 * The page is the one part of Colibri that may be framed, and only by the page that started the
 * authentication: its CSP names that origin in `frame-ancestors` (the global policy forbids
 * framing). Scripts and styles run under a per-response nonce; nothing else loads.
 * @example const page = await renderChallengePage(ctx, id); reply.header('content-security-policy', page.contentSecurityPolicy).send(page.html);
 */
export async function renderChallengePage(ctx: AppContext, id: string, lang: ChallengeLang = 'en'): Promise<ChallengePage> {
  const t = CHALLENGE_TEXT[lang];
  if (!isUuid(id)) throw new ApiError('THREE_DS_CHALLENGE_NOT_FOUND');
  const row = await ctx.db
    .selectFrom('three_ds_authentications as a')
    .leftJoin('cards as c', 'c.id', 'a.card_id')
    .innerJoin('merchants as m', 'm.id', 'a.merchant_id')
    .select(['a.id', 'a.status', 'a.merchant_origin', 'a.amount_minor', 'a.dstrans_id', 'a.masked_number as own_masked_number', 'c.masked_number as card_masked_number', 'm.name as merchant_name'])
    .where('a.id', '=', id)
    .executeTakeFirst();
  if (!row || row.dstrans_id === null) throw new ApiError('THREE_DS_CHALLENGE_NOT_FOUND');

  const nonce = randomBytes(16).toString('base64');
  const pending = row.status === 'CHALLENGE_PENDING';
  // The merchant origin was checked to be a plain scheme://host[:port] when it was stored, so it is
  // safe in a CSP header; in the script it is embedded as JSON, with `<` escaped.
  const ancestor = row.merchant_origin ?? "'self'";
  const config = JSON.stringify({ id: row.id, targetOrigin: row.merchant_origin, text: { failed: t.failedToComplete, authenticated: t.authenticated, wrongCode: t.wrongCode } }).replace(/</g, '\\u003c');
  const amount = lang === 'pt' ? `R$ ${formatAmount(row.amount_minor, 2).replace('.', ',')}` : lang === 'es' ? `R$${formatAmount(row.amount_minor, 2)}` : `BRL ${formatAmount(row.amount_minor, 2)}`;
  const html = `<!doctype html>
<html lang="${t.htmlLang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t.title}</title>
<style nonce="${nonce}">
  body { font: 15px/1.4 system-ui, sans-serif; margin: 0; padding: 28px 24px; color: #1d2433; }
  h1 { font-size: 18px; margin: 0 0 4px; }
  .bank { color: #5b6475; font-size: 13px; margin-bottom: 18px; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: 4px 12px; margin: 0 0 18px; font-size: 14px; }
  dt { color: #5b6475; }
  dd { margin: 0; }
  label { display: block; font-weight: 600; margin-bottom: 6px; }
  input { font-size: 20px; letter-spacing: 4px; width: 100%; box-sizing: border-box; padding: 8px 10px; border: 1px solid #b8c0cc; border-radius: 6px; }
  button { margin-top: 14px; width: 100%; padding: 10px; font-size: 16px; border: 0; border-radius: 6px; background: #0b6bcb; color: #fff; cursor: pointer; }
  .hint { color: #5b6475; font-size: 12px; margin-top: 10px; }
  .result { font-weight: 600; margin-top: 16px; }
</style>
</head>
<body>
<h1>${t.heading}</h1>
<div class="bank">Colibri sandbox issuer · 3-D Secure 2</div>
<dl>
  <dt>${t.merchant}</dt><dd>${escapeHtml(row.merchant_name)}</dd>
  <dt>${t.amount}</dt><dd>${amount}</dd>
  <dt>${t.card}</dt><dd>${escapeHtml(row.own_masked_number ?? row.card_masked_number ?? '')}</dd>
</dl>
${
  pending
    ? `<form id="challenge" autocomplete="off">
  <label for="code">${t.codeLabel}</label>
  <input id="code" name="code" inputmode="numeric" maxlength="8" autofocus required>
  <button type="submit">${t.confirm}</button>
  <div class="hint">${t.hint}</div>
</form>`
    : `<p class="result">${t.answered}</p>`
}
<p class="result" id="result" role="status"></p>
<script nonce="${nonce}">
(function () {
  var config = ${config};
  var form = document.getElementById('challenge');
  var result = document.getElementById('result');
  function report(message) {
    message.type = 'colibri:3ds-challenge';
    message.id = config.id;
    // Addressed to the merchant page that started the authentication, and to no other origin.
    window.parent.postMessage(message, config.targetOrigin || window.location.origin);
  }
  if (!form) return;
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var button = form.querySelector('button');
    button.disabled = true;
    fetch(window.location.pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: document.getElementById('code').value }),
      credentials: 'omit'
    })
      .then(function (response) { return response.json().then(function (body) { return { ok: response.ok, body: body }; }); })
      .then(function (answer) {
        form.hidden = true;
        if (!answer.ok) { result.textContent = config.text.failed; report({ status: 'ERROR' }); return; }
        result.textContent = answer.body.status === 'SUCCESS' ? config.text.authenticated : config.text.wrongCode;
        report({ status: answer.body.status, paymentToken: answer.body.paymentToken });
      })
      .catch(function () { result.textContent = config.text.failed; report({ status: 'ERROR' }); });
  });
})();
</script>
</body>
</html>
`;
  return {
    html,
    contentSecurityPolicy: [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "form-action 'self'",
      "base-uri 'none'",
      `frame-ancestors ${ancestor}`,
    ].join('; '),
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
