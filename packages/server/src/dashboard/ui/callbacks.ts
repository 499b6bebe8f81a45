import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, query, type Json } from './api';
import { CLOCK_STRINGS } from './clock-i18n';
import { ClockNote, Code, CodeOptions, Confirm, Facts, Loading, StatusBadge, useJson, useLocale, when, type Locale } from './components';

const EVENT_STATUSES = ['pending', 'delivered', 'failed', 'skipped'];

/** The payment (or other resource) an event is about: its reference and its token, from the event's data. */
function Subject({ event }: { event: Json }) {
  const { t } = useLocale();
  const data = (event.data ?? {}) as Json;
  const token: string | undefined = data.payment_token ?? (event.resource_type === 'payment' ? event.resource_id : undefined);
  return html`<${Facts}
    items=${[
      [t.reference, data.reference_id ?? ''],
      token ? [t.token, html`<a href=${`#/payments/${encodeURIComponent(token)}`}><code>${token}</code></a>`] : [t.resource, html`<code>${event.resource_type}: ${event.resource_id}</code>`],
      ...(data.status ? [[t.status, html`<${StatusBadge} status=${data.status} />`]] : []),
    ]}
  />`;
}

/** One delivery to one URL: its state, attempts, the last answer's code, and its attempts one by one. */
function Delivery({ delivery: d, locale }: { delivery: Json; locale: Locale }) {
  const { t } = locale;
  const c = CLOCK_STRINGS[locale.lang];
  const attempts: Json[] = d.attempts ?? [];
  const last = attempts.at(-1);
  return html`<div class="delivery" data-delivery-status=${d.status}>
    <${Facts}
      items=${[
        [c.delivery, html`<code>${d.url}</code>`],
        [t.status, html`<${StatusBadge} status=${d.status} />`],
        [t.attempts, String(d.attempt_count)],
        [c.lastResponse, last ? html`<span class="response-code">${last.response_status ?? t.none}</span>` : t.none],
        ...(d.next_attempt_at ? [[c.nextAttempt, when(locale, d.next_attempt_at)]] : []),
        ...(d.delivered_at ? [[c.deliveredAt, when(locale, d.delivered_at)]] : []),
        ...(d.failed_at ? [[c.failedAt, when(locale, d.failed_at)]] : []),
      ]}
    />
    ${attempts.length > 0
      ? html`<details>
          <summary>${t.attempts} (${attempts.length})</summary>
          <ol class="attempts">
            ${attempts.map(
              (a: Json) => html`<li>
                #${a.attempt} · ${when(locale, a.attempted_at)} · ${t.response}: ${a.response_status ?? t.none} · ${c.latency}: ${a.latency_ms} ms · <${Code} code=${a.result} />${a.manual ? ` (${c.manual})` : ''}
                ${a.error ? html`<div class="error">${a.error}</div>` : null}
              </li>`,
            )}
          </ol>
        </details>`
      : null}
  </div>`;
}

/** The event log with each delivery's attempts, resend per event, and rotation of the signing secret. */
export function Callbacks() {
  const locale = useLocale();
  const { t } = locale;
  const c = CLOCK_STRINGS[locale.lang];
  const [filters, setFilters] = useState<{ status: string; resource_id: string; cursor?: string }>({ status: '', resource_id: '' });
  const [data, error, reload] = useJson(`/events${query({ ...filters, limit: 20 })}`);
  const [confirming, setConfirming] = useState<{ kind: 'resend'; id: string } | { kind: 'rotate' } | null>(null);
  const [notice, setNotice] = useState<string>();
  const [secret, setSecret] = useState<string>();

  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    setFilters({ status: String(form.get('status') ?? ''), resource_id: String(form.get('resource_id') ?? '').trim() });
  };
  const confirmAction = async () => {
    if (!confirming) return;
    if (confirming.kind === 'resend') {
      await api('POST', `/events/${encodeURIComponent(confirming.id)}/retry`);
      setNotice(t.resent);
      reload();
    } else {
      const answer = await api('POST', '/webhook-secret/rotate');
      setSecret(answer.webhook_secret);
    }
  };

  return html`<h1>${t.callbacks}</h1>
    <${ClockNote} clock="real" />
    <div class="actions">
      <button type="button" class="danger" onClick=${() => setConfirming({ kind: 'rotate' })}>${t.rotateSecret}</button>
    </div>
    ${secret ? html`<p class="notice" role="status">${t.newSecret} <code class="secret">${secret}</code></p>` : null}
    ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
    ${confirming
      ? html`<${Confirm} title=${confirming.kind === 'rotate' ? t.confirmRotate : t.confirmResend} onConfirm=${confirmAction} onClose=${() => setConfirming(null)} />`
      : null}
    <form class="filters" role="search" onSubmit=${submit}>
      <label>${t.status}
        <select name="status" value=${filters.status}>
          <option value="">${t.any}</option>
          <${CodeOptions} codes=${EVENT_STATUSES} />
        </select>
      </label>
      <label class="grow">${t.resource} <input name="resource_id" value=${filters.resource_id} /></label>
      <button type="submit" class="primary">${t.search}</button>
    </form>
    ${!data
      ? html`<${Loading} error=${error} />`
      : html`<ul class="events">
            ${data.events.map(
              (e: Json) => html`<li class="card event" data-event-id=${e.id}>
                <div class="event-head">
                  <strong><${Code} code=${e.type} /></strong> <${StatusBadge} status=${e.status} />
                  <span class="muted">${c.eventTime}: <time datetime=${e.created_at}>${when(locale, e.created_at)}</time></span>
                </div>
                <${Subject} event=${e} />
                ${e.deliveries.length === 0 ? html`<p class="muted">${c.noDeliveries}</p>` : e.deliveries.map((d: Json) => html`<${Delivery} delivery=${d} locale=${locale} />`)}
                <details class="payload">
                  <summary>${c.payload}</summary>
                  <pre tabindex="0">${JSON.stringify({ id: e.id, type: e.type, created_at: e.created_at, data: e.data }, null, 2)}</pre>
                </details>
                ${e.deliveries.length > 0
                  ? html`<div class="actions"><button type="button" onClick=${() => setConfirming({ kind: 'resend', id: e.id })}>${t.resend}</button></div>`
                  : null}
              </li>`,
            )}
          </ul>
          ${data.has_more ? html`<button type="button" onClick=${() => setFilters({ ...filters, cursor: data.next_cursor })}>${t.next}</button>` : null}`}`;
}
