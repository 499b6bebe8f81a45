import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from './api';
import { CLOCK_STRINGS } from './clock-i18n';
import { ClockNote, useJson, useLocale, when } from './components';
import { label } from './labels';
import { DISPUTE_STRINGS } from './dispute-i18n';

const OPERATIONS = ['verifyCard', 'authorize', 'capture', 'cancel', 'refund', 'payout'];

/** A form whose submit runs `action` and shows its answer or its error next to it. */
function ActionForm({ title, children, action, id }: { title: string; children: unknown; action: (form: FormData) => Promise<string>; id: string }) {
  const [result, setResult] = useState<{ ok: boolean; text: string }>();
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      setResult({ ok: true, text: await action(new FormData(event.target as HTMLFormElement)) });
    } catch (e) {
      setResult({ ok: false, text: e instanceof Error ? e.message : String(e) });
    }
  };
  return html`<form class="card" onSubmit=${submit} aria-labelledby=${id}>
    <h2 id=${id}>${title}</h2>
    ${children}
    ${result ? html`<p class=${result.ok ? 'notice' : 'error'} role=${result.ok ? 'status' : 'alert'}>${result.text}</p>` : null}
  </form>`;
}

export function SandboxControls() {
  const locale = useLocale();
  const { t } = locale;
  const d = DISPUTE_STRINGS[locale.lang];
  const c = CLOCK_STRINGS[locale.lang];
  const [clock, , reloadClock] = useJson('/sandbox/clock');
  return html`<h1>${t.sandboxControls}</h1>
    <p class="muted">${c.sandboxRule}</p>
    <${ClockNote} clock="merchant" />
    <div class="grid">
      <${ActionForm}
        id="sandbox-clock"
        title=${t.advanceClock}
        action=${async (form: FormData) => {
          const seconds = Number(form.get('days') || 0) * 86_400 + Number(form.get('hours') || 0) * 3_600;
          const answer = await api('POST', '/sandbox/clock/advance', { seconds });
          reloadClock();
          return `${c.sandboxClock}: ${when(locale, answer.now)}`;
        }}
      >
        <p>${c.sandboxClock}: <strong class="sandbox-now">${clock ? when(locale, clock.now) : t.loading}</strong></p>
        <p>${c.realNow}: <strong class="real-now">${clock ? when(locale, clock.real_now) : t.loading}</strong></p>
        <label>${t.days} <input name="days" type="number" min="0" max="3650" defaultValue="1" /></label>
        <label>${t.hours} <input name="hours" type="number" min="0" max="23" defaultValue="0" /></label>
        <button type="submit" class="primary">${t.advance}</button>
      <//>
      <${ActionForm}
        id="sandbox-pay"
        title=${t.payCode}
        action=${async (form: FormData) => {
          const token = String(form.get('payment_token') ?? '').trim();
          const answer = await api('POST', `/sandbox/payments/${encodeURIComponent(token)}/pay`);
          return `${label(locale.lang, answer.method)}: ${label(locale.lang, answer.transaction_status)}`;
        }}
      >
        <label>${t.paymentToken} <input name="payment_token" required maxlength="64" /></label>
        <button type="submit" class="primary">${t.pay}</button>
      <//>
      <${ActionForm}
        id="sandbox-dispute"
        title=${d.sandboxOpen}
        action=${async (form: FormData) => {
          const token = String(form.get('payment_token') ?? '').trim();
          const answer = await api('POST', `/sandbox/payments/${encodeURIComponent(token)}/dispute`);
          return `${d.sandboxOpened} ${answer.reference_id}, ${answer.status}`;
        }}
      >
        <p class="muted">${d.sandboxOpenHint}</p>
        <label>${t.paymentToken} <input name="payment_token" required maxlength="64" /></label>
        <button type="submit" class="primary">${d.sandboxOpen}</button>
      <//>
      <${ActionForm}
        id="sandbox-faults"
        title=${t.faults}
        action=${async (form: FormData) => {
          const answer = await api('POST', '/sandbox/faults', { operation: form.get('operation'), fault: form.get('fault'), times: Number(form.get('times')) });
          return t.faultSet(answer.operation, answer.remaining);
        }}
      >
        <label>${t.operation} <select name="operation">${OPERATIONS.map((o) => html`<option value=${o}>${o}</option>`)}</select></label>
        <label>${t.fault} <select name="fault"><option value="UNAVAILABLE">UNAVAILABLE</option><option value="TIMEOUT">TIMEOUT</option></select></label>
        <label>${t.times} <input name="times" type="number" min="0" max="1000" defaultValue="1" required /></label>
        <button type="submit" class="primary">${t.inject}</button>
      <//>
    </div>`;
}
