import { html, render } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, setCsrfToken, whenSignedOut } from './api';
import { Callbacks } from './callbacks';
import { BalancePage } from './balance';
import { LocaleContext, useLocale } from './components';
import { CLOCK_STRINGS, TIME_ZONES, zoneName } from './clock-i18n';
import { initialLanguage, LANGUAGES, saveLanguage, type Language } from './i18n';
import { DisputeList, DisputePage } from './disputes';
import { CheckoutList, CheckoutPage, PayoutList, PayoutPage, SubscriptionList, SubscriptionPage } from './lists';
import { OperatorApp } from './operator';
import { Overview } from './overview';
import { PaymentList, PaymentPage } from './payments';
import { ReportList, ReportPage } from './reports';
import { SandboxControls } from './sandbox';

/** The signed-in session as GET/POST /dashboard/api/session answer it. */
interface Session {
  merchant: { id: string; name: string };
  mode: 'sandbox' | 'live';
  /** The merchant's time zone (dashboard/time-zone.ts): every time on the page shows in it. */
  time_zone: string;
  csrf_token: string;
}

function currentRoute(): { path: string[]; params: URLSearchParams } {
  const [path = '', search = ''] = location.hash.replace(/^#\/?/, '').split('?');
  return { path: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(search) };
}

function useRoute() {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => {
      setRoute(currentRoute());
      // A new view: move focus to its heading, so keyboard and screen reader users start there.
      requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
    };
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/**
 * What the page's own sign-in form (sent by the server while signed out, see dashboard/assets.ts)
 * holds when the script takes over: the values typed or auto-filled so far, and the field that had
 * the focus with its caret. Read once, synchronously, just before the first render replaces that form,
 * so no keystroke can fall between the read and the new form.
 */
interface EarlyForm {
  signedOut: boolean;
  apiKey: string;
  apiSecret: string;
  focused: { id: string; start: number | null; end: number | null } | null;
}

function readEarlyForm(app: HTMLElement): EarlyForm {
  const field = (id: string) => app.querySelector<HTMLInputElement>(`#${id}`);
  const active = document.activeElement;
  const focused = active instanceof HTMLInputElement && app.contains(active) ? { id: active.id, start: active.selectionStart, end: active.selectionEnd } : null;
  return { signedOut: app.dataset.signedOut === 'true', apiKey: field('api-key')?.value ?? '', apiSecret: field('api-secret')?.value ?? '', focused };
}

/** Gives the focus (and the caret) back to the field that had it in the page's own form. */
function restoreFocus(early: EarlyForm): void {
  if (!early.focused) return;
  const field = document.getElementById(early.focused.id);
  if (!(field instanceof HTMLInputElement)) return;
  field.focus();
  if (early.focused.start !== null && early.focused.end !== null) field.setSelectionRange(early.focused.start, early.focused.end);
}

function SignIn({ onSignedIn, expired, early }: { onSignedIn: (session: Session) => void; expired: boolean; early: EarlyForm }) {
  const { t } = useLocale();
  // Controlled fields that start from what the page's own form held when the script took over.
  const [apiKey, setApiKey] = useState(early.apiKey);
  const [apiSecret, setApiSecret] = useState(early.apiSecret);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await api<Session>('POST', '/session', { apiKey, apiSecret }));
    } catch (e) {
      setError(e instanceof ApiFailure && e.status === 401 ? t.badCredentials : e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="sign-in">
    <form class="card" onSubmit=${submit} aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">${t.signInTitle}</h1>
      <p class="muted">${t.signInHelp}</p>
      ${expired ? html`<p class="notice" role="status">${t.sessionExpired}</p>` : null}
      <label for="api-key">${t.apiKey}</label>
      <input id="api-key" name="apiKey" autocomplete="username" required maxlength="200" spellcheck=${false} value=${apiKey} onInput=${(e: Event) => setApiKey((e.target as HTMLInputElement).value)} />
      <label for="api-secret">${t.apiSecret}</label>
      <input id="api-secret" name="apiSecret" type="password" autocomplete="current-password" required maxlength="200" value=${apiSecret} onInput=${(e: Event) => setApiSecret((e.target as HTMLInputElement).value)} />
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <button type="submit" class="primary" disabled=${busy}>${busy ? t.signingIn : t.signIn}</button>
    </form>
  </main>`;
}

function View({ route, sandbox }: { route: ReturnType<typeof currentRoute>; sandbox: boolean }) {
  const [section, id] = route.path;
  switch (section) {
    case 'balance':
      return html`<${BalancePage} />`;
    case 'payments':
      return id ? html`<${PaymentPage} token=${id} />` : html`<${PaymentList} params=${route.params} />`;
    case 'disputes':
      return id ? html`<${DisputePage} id=${id} sandbox=${sandbox} />` : html`<${DisputeList} />`;
    case 'checkouts':
      return id ? html`<${CheckoutPage} id=${id} />` : html`<${CheckoutList} />`;
    case 'subscriptions':
      return id ? html`<${SubscriptionPage} id=${id} />` : html`<${SubscriptionList} />`;
    case 'payouts':
      return id ? html`<${PayoutPage} id=${id} />` : html`<${PayoutList} />`;
    case 'reports':
      return id ? html`<${ReportPage} id=${id} created=${route.params.get('created') === '1'} />` : html`<${ReportList} />`;
    case 'callbacks':
      return html`<${Callbacks} />`;
    case 'sandbox':
      return sandbox ? html`<${SandboxControls} />` : html`<${Overview} />`;
    default:
      return html`<${Overview} />`;
  }
}

function App({ early }: { early: EarlyForm }) {
  const [language, setLanguage] = useState<Language>(initialLanguage);
  // Signed out by the server's word, the sign-in form shows at once (no "loading" in between).
  const [session, setSession] = useState<Session | null | undefined>(early.signedOut ? null : undefined);
  const [expired, setExpired] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const [zoneNotice, setZoneNotice] = useState<string>();
  const route = useRoute();
  const t = LANGUAGES[language];
  const c = CLOCK_STRINGS[language];

  useEffect(() => {
    saveLanguage(language);
    document.title = t.title;
  }, [language]);
  useEffect(() => {
    whenSignedOut(() => {
      setExpired(true);
      setSession(null);
    });
    if (early.signedOut) return;
    api<Session>('GET', '/session').then(
      (s) => signedIn(s),
      () => setSession(null),
    );
  }, []);
  useEffect(() => setMenuOpen(false), [route]);

  const signedIn = (s: Session) => {
    setCsrfToken(s.csrf_token);
    setExpired(false);
    setSession(s);
  };
  const signOut = async () => {
    await api('DELETE', '/session').catch(() => undefined);
    setCsrfToken('');
    setSession(null);
  };

  const languagePicker = html`<label class="language">
    <span class="visually-hidden">${t.language}</span>
    <select aria-label=${t.language} value=${language} onChange=${(e: Event) => setLanguage((e.target as HTMLSelectElement).value as Language)}>
      <option value="pt-BR" lang="pt-BR">Português</option>
      <option value="en" lang="en">English</option>
      <option value="es" lang="es">Español</option>
    </select>
  </label>`;

  // The merchant's zone is kept by the server, so every user and browser of the merchant sees the same times.
  const changeZone = async (zone: string) => {
    const answer = await api<{ time_zone: string }>('PUT', '/settings', { time_zone: zone });
    if (session) setSession({ ...session, time_zone: answer.time_zone });
    setZoneNotice(c.zoneSaved(zoneName(language, answer.time_zone)));
  };
  const zonePicker = (zone: string) => html`<label class="zone">
    <span>${c.timeZone}</span>
    <select aria-label=${c.timeZone} value=${zone} onChange=${(e: Event) => changeZone((e.target as HTMLSelectElement).value)}>
      ${[...new Set([zone, ...TIME_ZONES, Intl.DateTimeFormat().resolvedOptions().timeZone])].map((z) => html`<option value=${z}>${zoneName(language, z)}</option>`)}
    </select>
  </label>`;

  let body;
  if (session === undefined) body = html`<main><p aria-live="polite">${t.loading}</p></main>`;
  else if (session === null) body = html`<header class="top"><span class="brand">Colibri</span>${languagePicker}</header><${SignIn} onSignedIn=${signedIn} expired=${expired} early=${early} />`;
  else {
    const sandbox = session.mode === 'sandbox';
    const section = route.path[0] ?? 'overview';
    const links: [string, string][] = [
      ['overview', t.overview],
      ['balance', t.balance],
      ['payments', t.payments],
      ['disputes', t.disputes],
      ['checkouts', t.checkouts],
      ['subscriptions', t.subscriptions],
      ['payouts', t.payouts],
      ['reports', t.reports],
      ['callbacks', t.callbacks],
      ...(sandbox ? ([['sandbox', t.sandboxControls]] as [string, string][]) : []),
    ];
    body = html`
      ${sandbox ? html`<div class="sandbox-badge" role="note">${t.sandboxBadge}</div>` : null}
      <header class="top">
        <span class="brand">Colibri</span>
        <span class="merchant">${session.merchant.name}</span>
        <button type="button" class="menu-button" aria-expanded=${menuOpen} aria-controls="menu-panel" onClick=${() => setMenuOpen(!menuOpen)}>${t.menu}</button>
        <div id="menu-panel" class=${menuOpen ? 'panel open' : 'panel'}>
          <nav aria-label=${t.nav}>
            <ul>
              ${links.map(([key, label]) => html`<li><a href=${`#/${key}`} aria-current=${section === key ? 'page' : undefined}>${label}</a></li>`)}
            </ul>
          </nav>
          ${languagePicker}
          ${zonePicker(session.time_zone)}
          <button type="button" class="sign-out" onClick=${signOut}>${t.signOut}</button>
        </div>
      </header>
      ${zoneNotice ? html`<p class="notice zone-notice" role="status">${zoneNotice}</p>` : null}
      <main id="main" tabindex="-1"><${View} route=${route} sandbox=${sandbox} /></main>`;
  }
  const locale = { lang: language, t, zone: session?.time_zone ?? 'America/Sao_Paulo', sandbox: session?.mode === 'sandbox' };
  return html`<${LocaleContext.Provider} value=${locale}>${body}<//>`;
}

/** Headings receive focus on navigation; they take it without showing in the tab order. */
function prepareHeadings(): void {
  new MutationObserver(() => {
    for (const h of document.querySelectorAll<HTMLElement>('main h1:not([tabindex])')) h.tabIndex = -1;
  }).observe(document.body, { childList: true, subtree: true });
}

prepareHeadings();
const app = document.getElementById('app')!;
// One bundle, two pages: the merchant's dashboard, and the operator view of reconciliation (operator.ts),
// whose page comes without the early sign-in form.
if (/\/dashboard\/operator\/?$/.test(location.pathname)) {
  render(html`<${OperatorApp} />`, app);
} else {
  const early = readEarlyForm(app);
  render(html`<${App} early=${early} />`, app);
  restoreFocus(early);
  // The first form has taken the values; a later sign-in form (after signing out) starts empty.
  early.apiKey = '';
  early.apiSecret = '';
}
