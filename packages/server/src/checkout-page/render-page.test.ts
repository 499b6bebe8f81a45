import { describe, expect, it } from 'vitest';
import { PAGE_CSP, pageAssets } from './assets';
import { formatMoney, langOf, messages } from './i18n';
import { escapeHtml, formatDueDate } from './render-page';

describe('checkout page helpers', () => {
  it('escapes HTML in text and attributes', () => {
    expect(escapeHtml(`<script>"x" & 'y'</script>`)).toBe('&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;');
  });

  it('formats money from cents without floats, in both languages', () => {
    expect(formatMoney(123456n, 'pt')).toBe('R$ 1.234,56');
    expect(formatMoney(123456n, 'en')).toBe('R$1,234.56');
    expect(formatMoney(5n, 'pt')).toBe('R$ 0,05');
    expect(formatMoney(999999999999n, 'pt')).toBe('R$ 9.999.999.999,99');
  });

  it('chooses Portuguese unless English is asked for, with the same keys in both', () => {
    expect(langOf(undefined)).toBe('pt');
    expect(langOf('fr')).toBe('pt');
    expect(langOf('en')).toBe('en');
    expect(Object.keys(messages('en')).sort()).toEqual(Object.keys(messages('pt')).sort());
    expect(formatDueDate('2026-03-10', 'pt')).toBe('10/03/2026');
  });

  it('pins its own assets with SRI and allows nothing else', () => {
    const { script, style } = pageAssets();
    expect(script.integrity).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
    expect(style.path).toMatch(/^\/pay\/assets\/checkout\.[0-9a-f]{12}\.css$/);
    expect(PAGE_CSP.split('; ')[0]).toBe("default-src 'none'");
    expect(PAGE_CSP).not.toMatch(/unsafe|\*|https?:/);
  });
});
