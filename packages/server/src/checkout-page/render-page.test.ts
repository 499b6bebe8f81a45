import { describe, expect, it } from 'vitest';
import { PAGE_CSP, pageAssets } from './assets';
import { chooseLang, formatMoney, messages } from './i18n';
import { escapeHtml, formatDueDate } from './render-page';

describe('checkout page helpers', () => {
  it('escapes HTML in text and attributes', () => {
    expect(escapeHtml(`<script>"x" & 'y'</script>`)).toBe('&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;');
  });

  it('formats money from cents without floats, in each language', () => {
    expect(formatMoney(123456n, 'pt')).toBe('R$ 1.234,56');
    expect(formatMoney(123456n, 'en')).toBe('R$1,234.56');
    expect(formatMoney(5n, 'pt')).toBe('R$ 0,05');
    expect(formatMoney(999999999999n, 'pt')).toBe('R$ 9.999.999.999,99');
  });

  it('chooses ?lang, then the browser language, then the checkout country, with the same keys in every language', () => {
    expect(chooseLang({}, 'BR')).toBe('pt');
    expect(chooseLang({}, 'MX')).toBe('es');
    expect(chooseLang({ query: 'fr' }, 'BR')).toBe('pt');
    expect(chooseLang({ query: 'en', acceptLanguage: 'es-MX' }, 'MX')).toBe('en');
    expect(chooseLang({ acceptLanguage: 'es-MX,es;q=0.9,en;q=0.8' }, 'BR')).toBe('es');
    expect(chooseLang({ acceptLanguage: 'en-US,en;q=0.9,pt-BR;q=0.8' }, 'BR')).toBe('en');
    expect(chooseLang({ acceptLanguage: 'fr-FR,fr;q=0.9' }, 'MX')).toBe('es');
    expect(chooseLang({ acceptLanguage: '*' }, 'MX')).toBe('es');
    expect(chooseLang({ acceptLanguage: 'de, pt;q=0.1' }, 'MX')).toBe('pt');
    for (const lang of ['en', 'es'] as const) expect(Object.keys(messages(lang)).sort()).toEqual(Object.keys(messages('pt')).sort());
    expect(formatDueDate('2026-03-10', 'pt')).toBe('10/03/2026');
    expect(formatDueDate('2026-03-10', 'es')).toBe('10/03/2026');
    expect(formatMoney(123456n, 'es', 'MXN')).toBe('MX$1,234.56');
  });

  it('pins its own assets with SRI and allows nothing else', () => {
    const { script, style } = pageAssets();
    expect(script.integrity).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
    expect(style.path).toMatch(/^\/pay\/assets\/checkout\.[0-9a-f]{12}\.css$/);
    expect(PAGE_CSP.split('; ')[0]).toBe("default-src 'none'");
    expect(PAGE_CSP).not.toMatch(/unsafe|\*|https?:/);
  });
});
