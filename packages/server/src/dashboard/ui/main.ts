import { html, render } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, setCsrfToken, whenSignedOut } from './api';
import { Callbacks } from './callbacks';
import { BalancePage } from './balance';
import { LocaleContext, useLocale } from './components';
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

function SignIn({ onSignedIn, expired }: { onSignedIn: (session: Session) => void; expired: boolean }) {
  const { t } = useLocale();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await api<Session>('POST', '/session', { apiKey: String(form.get('apiKey') ?? ''), apiSecret: String(form.get('apiSecret') ?? '') }));
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
      <input id="api-key" name="apiKey" autocomplete="username" required maxlength="200" spellcheck=${false} />
      <label for="api-secret">${t.apiSecret}</label>
      <input id="api-secret" name="apiSecret" type="password" autocomplete="current-password" required maxlength="200" />
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

function App() {
  const [language, setLanguage] = useState<Language>(initialLanguage);
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [expired, setExpired] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const route = useRoute();
  const t = LANGUAGES[language];

  useEffect(() => {
    saveLanguage(language);
    document.title = t.title;
  }, [language]);
  useEffect(() => {
    whenSignedOut(() => {
      setExpired(true);
      setSession(null);
    });
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

  let body;
  if (session === undefined) body = html`<main><p aria-live="polite">${t.loading}</p></main>`;
  else if (session === null) body = html`<header class="top"><span class="brand">Colibri</span>${languagePicker}</header><${SignIn} onSignedIn=${signedIn} expired=${expired} />`;
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
          <button type="button" class="sign-out" onClick=${signOut}>${t.signOut}</button>
        </div>
      </header>
      <main id="main" tabindex="-1"><${View} route=${route} sandbox=${sandbox} /></main>`;
  }
  return html`<${LocaleContext.Provider} value=${{ lang: language, t }}>${body}<//>`;
}

/** Headings receive focus on navigation; they take it without showing in the tab order. */
function prepareHeadings(): void {
  new MutationObserver(() => {
    for (const h of document.querySelectorAll<HTMLElement>('main h1:not([tabindex])')) h.tabIndex = -1;
  }).observe(document.body, { childList: true, subtree: true });
}

prepareHeadings();
// One bundle, two pages: the merchant's dashboard, and the operator view of reconciliation (operator.ts).
const operatorView = /\/dashboard\/operator\/?$/.test(location.pathname);
render(operatorView ? html`<${OperatorApp} />` : html`<${App} />`, document.getElementById('app')!);
