import { createContext } from 'preact';
import { html } from 'htm/preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { api, type Json } from './api';
import { CLOCK_STRINGS, zoneName } from './clock-i18n';
import { formatMoney, formatWhen, type Language, type Strings } from './i18n';
import { label } from './labels';

/**
 * The language and its words, given to every view, with the merchant's time zone (in which every time
 * shows) and whether the service is in sandbox mode (where the merchant clock can run ahead).
 */
export interface Locale {
  readonly lang: Language;
  readonly t: Strings;
  readonly zone: string;
  readonly sandbox: boolean;
}
export const LocaleContext = createContext<Locale>(undefined as unknown as Locale);
export const useLocale = (): Locale => useContext(LocaleContext);

export function money(locale: Locale, amount: string | number | null | undefined, currency: string | null | undefined): string {
  if (amount === null || amount === undefined || !currency) return locale.t.none;
  return formatMoney(locale.lang, amount, currency);
}

/** A time in the merchant's time zone, with its offset. */
export function when(locale: Locale, iso: string | null | undefined): string {
  return formatWhen(locale.lang, iso, locale.zone);
}

/**
 * Which clock a page's times are on, said under its heading: the merchant clock (called the sandbox
 * clock in sandbox mode, where it can run ahead of real time) or real time (callbacks).
 */
export function ClockNote({ clock }: { clock: 'merchant' | 'real' }) {
  const locale = useLocale();
  const c = CLOCK_STRINGS[locale.lang];
  const name = clock === 'real' ? c.realTime : locale.sandbox ? c.sandboxClock : c.merchantClock;
  return html`<p class="clock-note muted" data-clock=${clock === 'real' ? 'real' : locale.sandbox ? 'sandbox' : 'merchant'}>${c.clockNote(name, zoneName(locale.lang, locale.zone))}</p>`;
}

/** A code (a method, an event type…) in the reader's words, the code kept as its title. */
export function Code({ code }: { code: string | null | undefined }) {
  const { lang } = useLocale();
  if (!code) return html`—`;
  return html`<span class="code-label" title=${code} data-code=${code}>${label(lang, code)}</span>`;
}

/** The options of a filter over codes: the reader's words shown, the code sent. */
export function CodeOptions({ codes }: { codes: readonly string[] }) {
  const { lang } = useLocale();
  return codes.map((code) => html`<option value=${code}>${label(lang, code)}</option>`);
}

/** Goes to a dashboard address (hash routing: the server serves one page). */
export function go(path: string): void {
  location.hash = `#${path}`;
}

/**
 * Loads JSON whenever `path` changes; `reload` fetches it again (after an action). `load` reads it: the
 * dashboard's API by default (the operator view passes its admin API).
 * @example const [data, error, reload] = useJson('/payments?page=0');
 */
export function useJson(path: string | null, load: (path: string) => Promise<Json> = (p) => api('GET', p)): [Json | undefined, string | undefined, () => void] {
  const [state, setState] = useState<{ data?: Json; error?: string }>({});
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    load(path).then(
      (data) => live && setState({ data }),
      (error: unknown) => live && setState({ error: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      live = false;
    };
  }, [path, round]);
  return [state.data, state.error, () => setRound((n) => n + 1)];
}

export function Loading({ error }: { error?: string | undefined }) {
  const { t } = useLocale();
  return error ? html`<p class="error" role="alert">${error}</p>` : html`<p aria-live="polite">${t.loading}</p>`;
}

/** A status in the reader's words, coloured by its code, which stays as its title and data-code. */
export function StatusBadge({ status }: { status: string }) {
  const { lang } = useLocale();
  return html`<span class=${`badge status-${String(status).toLowerCase()}`} title=${status} data-code=${status}>${label(lang, status)}</span>`;
}

/** Page controls of a list: previous, "page n of m", next. */
export function Pager({ page, size, total, onPage }: { page: number; size: number; total: number; onPage: (page: number) => void }) {
  const { t } = useLocale();
  const pages = Math.max(1, Math.ceil(total / size));
  return html`<nav class="pager" aria-label=${t.pageOf(page + 1, pages)}>
    <button type="button" disabled=${page <= 0} onClick=${() => onPage(page - 1)}>${t.previous}</button>
    <span>${t.pageOf(page + 1, pages)} · ${t.results(total)}</span>
    <button type="button" disabled=${page + 1 >= pages} onClick=${() => onPage(page + 1)}>${t.next}</button>
  </nav>`;
}

/**
 * A confirmation in a modal `<dialog>`: the browser keeps focus inside it and Escape closes it. The
 * action runs only on "Confirm"; its error stays in the dialog so the user can read it.
 */
export function Confirm({
  title,
  children,
  onConfirm,
  onClose,
}: {
  title: string;
  children?: unknown;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const { t } = useLocale();
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
      dialog.current?.close();
      onClose();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return html`<dialog ref=${dialog} class="confirm" aria-labelledby="confirm-title" onClose=${onClose}>
    <form onSubmit=${submit}>
      <h2 id="confirm-title">${title}</h2>
      ${children}
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <div class="actions">
        <button type="button" onClick=${() => dialog.current?.close()}>${t.close}</button>
        <button type="submit" class="primary" disabled=${busy}>${t.confirm}</button>
      </div>
    </form>
  </dialog>`;
}

/**
 * A table inside a scrolling box, so a wide table never widens the page on a phone. A `stacked` table
 * shows each row as a card on a phone instead, each cell under its column's name (its `data-label`).
 */
export function Table({ caption, head, children, stacked }: { caption: string; head: string[]; children: unknown; stacked?: boolean }) {
  return html`<div class=${stacked ? 'table-wrap stacked' : 'table-wrap'} tabindex="0" role="region" aria-label=${caption}>
    <table>
      <caption class="visually-hidden">${caption}</caption>
      <thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
      <tbody>${children}</tbody>
    </table>
  </div>`;
}

/** Label: value pairs. */
export function Facts({ items }: { items: [string, unknown][] }) {
  return html`<dl class="facts">${items.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v === '' || v === null || v === undefined ? '—' : v}</dd></div>`)}</dl>`;
}
