import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, query, type Json } from './api';
import { Confirm, Loading, StatusBadge, useJson, useLocale, when } from './components';

const EVENT_STATUSES = ['pending', 'delivered', 'failed', 'skipped'];

/** The event log with each delivery's attempts, resend per event, and rotation of the signing secret. */
export function Callbacks() {
  const locale = useLocale();
  const { t } = locale;
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
          ${EVENT_STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
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
                  <strong>${e.type}</strong> <${StatusBadge} status=${e.status} />
                  <span class="muted">${when(locale, e.created_at)}</span>
                </div>
                <p>${t.resource}: <code>${e.resource_id}</code></p>
                ${e.deliveries.map(
                  (d: Json) => html`<details>
                    <summary>${d.url} · <${StatusBadge} status=${d.status} /> · ${t.attempts}: ${d.attempt_count}</summary>
                    <ol class="attempts">
                      ${(d.attempts ?? []).map(
                        (a: Json) => html`<li>
                          #${a.attempt} ${when(locale, a.attempted_at)} · ${t.response}: ${a.response_status ?? t.none} · ${a.latency_ms} ms · ${a.result}${a.manual ? ' (manual)' : ''}
                          ${a.error ? html`<div class="error">${a.error}</div>` : null}
                        </li>`,
                      )}
                    </ol>
                  </details>`,
                )}
                ${e.deliveries.length > 0
                  ? html`<div class="actions"><button type="button" onClick=${() => setConfirming({ kind: 'resend', id: e.id })}>${t.resend}</button></div>`
                  : null}
              </li>`,
            )}
          </ul>
          ${data.has_more ? html`<button type="button" onClick=${() => setFilters({ ...filters, cursor: data.next_cursor })}>${t.next}</button>` : null}`}`;
}
