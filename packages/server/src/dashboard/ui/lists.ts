import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { query, type Json } from './api';
import { ClockNote, Code, CodeOptions, Facts, Loading, money, Pager, StatusBadge, Table, useJson, useLocale, when } from './components';

/** A status filter over a paged list; the page number is local state. */
export function usePagedList(path: string) {
  const [page, setPage] = useState(0);
  const [status, setStatus] = useState('');
  const [data, error] = useJson(`${path}${query({ page, status })}`);
  return { page, setPage, status, setStatus: (s: string) => (setStatus(s), setPage(0)), data, error };
}

export function StatusFilter({ statuses, value, onChange }: { statuses: string[]; value: string; onChange: (s: string) => void }) {
  const { t } = useLocale();
  return html`<form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
    <label>${t.status}
      <select value=${value} onChange=${(e: Event) => onChange((e.target as HTMLSelectElement).value)}>
        <option value="">${t.any}</option>
        <${CodeOptions} codes=${statuses} />
      </select>
    </label>
  </form>`;
}

export function CheckoutList() {
  const locale = useLocale();
  const { t } = locale;
  const list = usePagedList('/checkouts');
  return html`<h1>${t.checkouts}</h1>
    <${StatusFilter} statuses=${['CREATED', 'PROCESSING', 'PAID', 'CANCELED', 'ERROR']} value=${list.status} onChange=${list.setStatus} />
    <${ClockNote} clock="merchant" />
    ${!list.data
      ? html`<${Loading} error=${list.error} />`
      : html`<${Table} caption=${t.checkouts} head=${[t.reference, t.status, t.method, t.amount, t.attempts, t.created]}>
            ${list.data.rows.map(
              (c: Json) => html`<tr>
                <td><a href=${`#/checkouts/${c.checkout_id}`}>${c.reference_id}</a></td>
                <td><${StatusBadge} status=${c.status} /></td>
                <td>${c.methods.map((m: string, i: number) => html`${i > 0 ? ', ' : ''}<${Code} code=${m} />`)}</td>
                <td class="num">${money(locale, c.amount, c.currency)}</td>
                <td class="num">${c.attempts}</td>
                <td>${when(locale, c.created_at)}</td>
              </tr>`,
            )}
          <//>
          <${Pager} page=${list.page} size=${list.data.size} total=${list.data.total} onPage=${list.setPage} />`}`;
}

export function CheckoutPage({ id }: { id: string }) {
  const locale = useLocale();
  const { t } = locale;
  const [data, error] = useJson(`/checkouts/${encodeURIComponent(id)}`);
  if (!data) return html`<p><a href="#/checkouts">← ${t.back}</a></p><${Loading} error=${error} />`;
  return html`<p><a href="#/checkouts">← ${t.back}</a></p>
    <h1>Checkout ${data.reference_id} <${StatusBadge} status=${data.status} /></h1>
    <section class="card">
      <${Facts}
        items=${[
          ['ID', html`<code>${data.checkout_id}</code>`],
          [t.method, data.methods.map((m: string, i: number) => html`${i > 0 ? ', ' : ''}<${Code} code=${m} />`)],
          [t.amount, money(locale, data.amount, data.asset)],
          [t.expires, when(locale, data.expires_at)],
        ]}
      />
    </section>
    <h2>${t.payments}</h2>
    <${Table} caption=${t.payments} head=${[t.token, t.method, t.status]}>
      ${data.payments.map(
        (p: Json) => html`<tr><td><a href=${`#/payments/${p.payment_token}`}><code>${p.payment_token}</code></a></td><td><${Code} code=${p.method} /></td><td><${StatusBadge} status=${p.transaction_status} /></td></tr>`,
      )}
    <//>`;
}

export function SubscriptionList() {
  const locale = useLocale();
  const { t } = locale;
  const list = usePagedList('/subscriptions');
  return html`<h1>${t.subscriptions}</h1>
    <${StatusFilter} statuses=${['ACTIVE', 'PAST_DUE', 'CANCELED']} value=${list.status} onChange=${list.setStatus} />
    <${ClockNote} clock="merchant" />
    ${!list.data
      ? html`<${Loading} error=${list.error} />`
      : html`<${Table} caption=${t.subscriptions} head=${[t.reference, t.status, t.amount, t.interval, t.nextDue, t.created]}>
            ${list.data.rows.map(
              (s: Json) => html`<tr>
                <td><a href=${`#/subscriptions/${s.subscription_id}`}>${s.reference_id ?? s.subscription_id}</a></td>
                <td><${StatusBadge} status=${s.status} /></td>
                <td class="num">${s.amount === null ? s.amount_type : money(locale, s.amount, s.asset)}</td>
                <td>${s.interval}</td>
                <td>${s.next_due_date ?? t.none}</td>
                <td>${when(locale, s.created_at)}</td>
              </tr>`,
            )}
          <//>
          <${Pager} page=${list.page} size=${list.data.size} total=${list.data.total} onPage=${list.setPage} />`}`;
}

export function SubscriptionPage({ id }: { id: string }) {
  const locale = useLocale();
  const { t } = locale;
  const [page, setPage] = useState(0);
  const [data, error] = useJson(`/subscriptions/${encodeURIComponent(id)}${query({ page })}`);
  if (!data) return html`<p><a href="#/subscriptions">← ${t.back}</a></p><${Loading} error=${error} />`;
  const s = data.subscription;
  return html`<p><a href="#/subscriptions">← ${t.back}</a></p>
    <h1>${t.subscriptions}: ${s.reference_id ?? s.subscription_id} <${StatusBadge} status=${s.status} /></h1>
    <section class="card">
      <${Facts}
        items=${[
          ['ID', html`<code>${s.subscription_id}</code>`],
          [t.amount, s.amount === null ? s.amount_type : money(locale, s.amount, s.asset)],
          [t.interval, s.interval],
          [t.nextDue, s.next_due_date],
          [t.created, when(locale, s.created_at)],
        ]}
      />
    </section>
    <h2>${t.charges}</h2>
    <${Table} caption=${t.charges} head=${[t.dueDate, t.status, t.amount, t.attempts, t.payment]}>
      ${data.charges.rows.map(
        (c: Json) => html`<tr>
          <td>${c.due_date}</td>
          <td><${StatusBadge} status=${c.status} /></td>
          <td class="num">${money(locale, c.amount, c.asset)}</td>
          <td class="num">${c.attempts}</td>
          <td>${c.transaction_id ? html`<a href=${`#/payments/${c.transaction_id}`}>${c.transaction_status ? html`<${StatusBadge} status=${c.transaction_status} />` : c.transaction_id}</a>` : t.none}</td>
        </tr>`,
      )}
    <//>
    <${Pager} page=${page} size=${data.charges.size} total=${data.charges.total} onPage=${setPage} />`;
}

export function PayoutList() {
  const locale = useLocale();
  const { t } = locale;
  const list = usePagedList('/payouts');
  return html`<h1>${t.payouts}</h1>
    <${StatusFilter} statuses=${['CREATED', 'PROCESSING', 'PAID', 'REJECTED', 'CANCELED']} value=${list.status} onChange=${list.setStatus} />
    <${ClockNote} clock="merchant" />
    ${!list.data
      ? html`<${Loading} error=${list.error} />`
      : html`<${Table} caption=${t.payouts} head=${[t.reference, t.status, t.recipient, t.country, t.amount, t.created]}>
            ${list.data.rows.map(
              (p: Json) => html`<tr>
                <td><a href=${`#/payouts/${p.tx_id}`}>${p.reference_id}</a></td>
                <td><${StatusBadge} status=${p.status} /></td>
                <td>${p.full_name ?? t.none}</td>
                <td>${p.country}</td>
                <td class="num">${money(locale, p.amount, p.currency)}</td>
                <td>${when(locale, p.created_at)}</td>
              </tr>`,
            )}
          <//>
          <${Pager} page=${list.page} size=${list.data.size} total=${list.data.total} onPage=${list.setPage} />`}`;
}

export function PayoutPage({ id }: { id: string }) {
  const locale = useLocale();
  const { t } = locale;
  const [data, error] = useJson(`/payouts/${encodeURIComponent(id)}`);
  if (!data) return html`<p><a href="#/payouts">← ${t.back}</a></p><${Loading} error=${error} />`;
  return html`<p><a href="#/payouts">← ${t.back}</a></p>
    <h1>${t.payouts}: ${data.reference_id} <${StatusBadge} status=${data.status} /></h1>
    <section class="card">
      <${Facts}
        items=${[
          ['tx_id', html`<code>${data.tx_id}</code>`],
          [t.amount, money(locale, data.amount, data.asset)],
          [`${t.amount} (${data.original_asset})`, money(locale, data.original_amount, data.original_asset)],
          [t.fees, `${money(locale, data.merchant_fees, data.asset)} / ${money(locale, data.customer_fees, data.asset)}`],
          [t.recipient, data.banking_data],
          [t.error, data.error_code ? `${data.error_code} ${data.error_description ?? ''}` : ''],
        ]}
      />
    </section>`;
}
