import { UFS } from '../checkout/boleto-payer';
import type { Lang } from './i18n';

/**
 * The page's boleto payer form: where a bank registers the merchant's boletos and the session has no
 * payer yet (the merchant gave no `customer` at generation), choosing boleto asks the shopper for the
 * name, CPF or CNPJ and address the bank requires. The script checks the CPF's or CNPJ's check digits
 * and the CEP before sending; the server checks them again (checkout/boleto-payer.ts). Kept apart from
 * render-page.ts, with its own words, so the form is one block.
 */

const WORDS = {
  pt: {
    title: 'Dados do pagador',
    intro: 'O banco registra o boleto com o nome, o CPF ou CNPJ e o endereço de quem paga.',
    name: 'Nome completo',
    taxId: 'CPF ou CNPJ',
    postalCode: 'CEP',
    street: 'Rua',
    number: 'Número',
    complement: 'Complemento (opcional)',
    district: 'Bairro',
    city: 'Cidade',
    state: 'Estado (UF)',
    submit: 'Gerar boleto',
    taxIdInvalid: 'CPF ou CNPJ inválido: confira os dígitos.',
    postalCodeInvalid: 'O CEP tem 8 dígitos.',
  },
  es: {
    title: 'Datos del pagador',
    intro: 'El banco registra el boleto con el nombre, el CPF o CNPJ y la dirección de quien paga.',
    name: 'Nombre completo',
    taxId: 'CPF o CNPJ',
    postalCode: 'CEP (código postal)',
    street: 'Calle',
    number: 'Número',
    complement: 'Complemento (opcional)',
    district: 'Barrio',
    city: 'Ciudad',
    state: 'Estado (UF)',
    submit: 'Generar boleto',
    taxIdInvalid: 'CPF o CNPJ inválido: revise los dígitos.',
    postalCodeInvalid: 'El CEP tiene 8 dígitos.',
  },
  en: {
    title: "Payer's details",
    intro: "The bank registers the boleto with the payer's name, CPF or CNPJ and address.",
    name: 'Full name',
    taxId: 'CPF or CNPJ',
    postalCode: 'CEP (postal code)',
    street: 'Street',
    number: 'Number',
    complement: 'Complement (optional)',
    district: 'District (bairro)',
    city: 'City',
    state: 'State (UF)',
    submit: 'Create the boleto',
    taxIdInvalid: 'Invalid CPF or CNPJ: check the digits.',
    postalCodeInvalid: 'A CEP has 8 digits.',
  },
} as const satisfies Record<Lang, Record<string, string>>;

/**
 * The form, posting `{method: 'BOLETO', payer}` to the page's attempts endpoint (checkout.js,
 * boletoPayerForm). `e` is the page's HTML escape.
 * @example renderBoletoPayerForm('pt', 'Boleto bancário', otherMethodLink, escapeHtml)
 */
export function renderBoletoPayerForm(lang: Lang, heading: string, otherMethod: string, e: (text: string) => string): string {
  const w = WORDS[lang];
  const field = (id: string, label: string, attributes: string) => `<label for="payer-${id}">${e(label)}</label>
<input id="payer-${id}" name="${id}" ${attributes}>`;
  const states = UFS.map((uf) => `<option value="${uf}">${uf}</option>`).join('');
  return `<section data-view="boleto-payer">
<h1>${e(heading)}</h1>
<form id="boleto-payer-form" novalidate autocomplete="on" data-tax-id-invalid="${e(w.taxIdInvalid)}" data-postal-code-invalid="${e(w.postalCodeInvalid)}">
<fieldset>
<legend>${e(w.title)}</legend>
<p>${e(w.intro)}</p>
${field('name', w.name, 'autocomplete="name" required maxlength="200"')}
${field('tax_id', w.taxId, 'inputmode="numeric" required maxlength="18"')}
${field('postal_code', w.postalCode, 'inputmode="numeric" autocomplete="postal-code" required maxlength="9" placeholder="00000-000"')}
${field('street', w.street, 'autocomplete="address-line1" required maxlength="200"')}
${field('number', w.number, 'required maxlength="20"')}
${field('complement', w.complement, 'autocomplete="address-line2" maxlength="100"')}
${field('district', w.district, 'required maxlength="100"')}
${field('city', w.city, 'autocomplete="address-level2" required maxlength="100"')}
<label for="payer-state">${e(w.state)}</label>
<select id="payer-state" name="state" autocomplete="address-level1" required><option value=""></option>${states}</select>
</fieldset>
<button type="submit">${e(w.submit)}</button>
<p id="form-status" class="status" role="status" aria-live="polite"></p>
</form>
${otherMethod}
</section>`;
}
