import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api, query, type Json } from './api';
import { ClockNote, Code, CodeOptions, Confirm, Facts, go, Loading, money, Pager, StatusBadge, Table, useJson, useLocale, when } from './components';
import { label } from './labels';

const STATUSES = ['CREATED', 'PROCESSING', 'PRE_AUTHORIZED', 'PAID', 'DECLINED', 'CANCELED', 'EXPIRED', 'ERROR', 'REFUNDED', 'PARTIALLY_REFUNDED'];
const METHODS = ['CREDITCARD', 'DEBITCARD', 'PIX', 'BOLETO'];

/** The search's state lives in the address, so a search can be bookmarked and Back returns to it. */
export function PaymentList({ params }: { params: URLSearchParams }) {
  const locale = useLocale();
  const { t } = locale;
  const filters = {
    q: params.get('q') ?? '',
    status: params.get('status') ?? '',
    method: params.get('method') ?? '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    page: Number(params.get('page') ?? 0) || 0,
  };
  const [data, error] = useJson(`/payments${query(filters)}`);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const next: Record<string, string> = {};
    for (const [key, value] of form) next[key] = String(value);
    go(`/payments${query(next)}`);
  };
  return html`<h1>${t.payments}</h1>
    <form class="filters" role="search" onSubmit=${submit}>
      <label class="grow">${t.search} <input type="search" name="q" value=${filters.q} placeholder=${t.searchHint} /></label>
      <label>${t.status}
        <select name="status" value=${filters.status}>
          <option value="">${t.any}</option>
          <${CodeOptions} codes=${STATUSES} />
        </select>
      </label>
      <label>${t.method}
        <select name="method" value=${filters.method}>
          <option value="">${t.any}</option>
          <${CodeOptions} codes=${METHODS} />
        </select>
      </label>
      <label>${t.from} <input type="date" name="from" value=${filters.from} /></label>
      <label>${t.to} <input type="date" name="to" value=${filters.to} /></label>
      <button type="submit" class="primary">${t.search}</button>
    </form>
    ${!data
      ? html`<${Loading} error=${error} />`
      : html`<${ClockNote} clock="merchant" />
          <${Table} caption=${t.payments} head=${[t.reference, t.status, t.amount, t.method, t.created, t.token]} stacked=${true}>
            ${data.rows.map(
              (p: Json) => html`<tr data-payment-token=${p.payment_token}>
                <td data-label=${t.reference} class="primary-cell"><a href=${`#/payments/${p.payment_token}`}>${p.reference_id}</a></td>
                <td data-label=${t.status}><${StatusBadge} status=${p.status} /></td>
                <td data-label=${t.amount} class="num">${money(locale, p.amount, p.currency)}</td>
                <td data-label=${t.method}><${Code} code=${p.method} /></td>
                <td data-label=${t.created}><time datetime=${p.created_at}>${when(locale, p.created_at)}</time></td>
                <td data-label=${t.token} class="token-cell"><code>${p.payment_token}</code></td>
              </tr>`,
            )}
          <//>
          <${Pager} page=${data.page} size=${data.size} total=${data.total} onPage=${(page: number) => go(`/payments${query({ ...filters, page })}`)} />`}`;
}

type Action = 'capture' | 'cancel' | 'refund' | null;

export function PaymentPage({ token }: { token: string }) {
  const locale = useLocale();
  const { t } = locale;
  const [data, error, reload] = useJson(`/payments/${encodeURIComponent(token)}`);
  const [action, setAction] = useState<Action>(null);
  const [notice, setNotice] = useState<string>();
  if (!data) return html`<p><a href="#/payments">← ${t.back}</a></p><${Loading} error=${error} />`;
  const g = data.general_info;
  const p = data.payment_info;
  const status: string = g.transaction_status;
  const currency: string = p.payment_currency;
  const fees: Json[] = data.fee_info.fee;
  // Every fee of a converted payment carries the same FX information.
  const fx = fees.find((f: Json) => f.fxInfo)?.fxInfo ?? null;
  const history: Json[] = data.transaction_history;
  const refunds: Json[] = data.refunds ?? [];
  const canRefund = status === 'PAID' || status === 'PARTIALLY_REFUNDED';
  // The payment's latest dispute, open or closed.
  const disputeId: string | null = data.other_info?.dispute_id ?? null;

  const run = async (kind: Exclude<Action, null>, form: FormData) => {
    const path = `/payments/${encodeURIComponent(token)}/${kind}`;
    const amount = String(form.get('amount') ?? '').trim();
    const body: Record<string, unknown> = {};
    // The API takes amounts as JSON numbers read through their shortest decimal form (docs/conventions.md).
    if (amount) body.amount = Number(amount.replace(',', '.'));
    const pixKey = String(form.get('pix_key') ?? '').trim();
    if (pixKey) body.pix_key = pixKey;
    const answer = await api('POST', path, kind === 'cancel' ? undefined : body);
    setNotice(kind === 'refund' ? t.refundRequested(label(locale.lang, answer.refund_status)) : `${t.done} ${label(locale.lang, answer.transaction_status ?? '')}`);
    reload();
  };
  let dialog = null;
  if (action) {
    const title = action === 'capture' ? t.confirmCapture : action === 'cancel' ? t.confirmCancel : t.confirmRefund;
    dialog = html`<${Confirm}
      title=${title}
      onClose=${() => setAction(null)}
      onConfirm=${() => run(action, new FormData(document.querySelector('dialog.confirm form') as HTMLFormElement))}
    >
      ${action === 'capture' ? html`<label>${t.captureAmount} <input name="amount" inputmode="decimal" required /></label>` : null}
      ${action === 'refund'
        ? html`<label>${t.refundAmount} <input name="amount" inputmode="decimal" pattern="[0-9]+([.,][0-9]{1,2})?" /></label>
            ${p.order_method === 'PIX' ? html`<label>${t.pixKey} <input name="pix_key" /></label>` : null}`
        : null}
    <//>`;
  }

  return html`<p><a href="#/payments">← ${t.back}</a></p>
    <h1>${t.payment} ${g.external_id} <${StatusBadge} status=${status} /></h1>
    ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
    <${ClockNote} clock="merchant" />
    <div class="actions">
      ${status === 'PRE_AUTHORIZED' ? html`<button type="button" class="primary" onClick=${() => setAction('capture')}>${t.capture}</button>` : null}
      ${status === 'PRE_AUTHORIZED' ? html`<button type="button" class="danger" onClick=${() => setAction('cancel')}>${t.cancel}</button>` : null}
      ${canRefund ? html`<button type="button" class="danger" onClick=${() => setAction('refund')}>${t.refund}</button>` : null}
    </div>
    ${dialog}
    <div class="grid">
      <section class="card">
        <h2>${t.payment}</h2>
        <${Facts}
          items=${[
            [t.token, html`<code>${g.transaction_id}</code>`],
            [t.method, html`<${Code} code=${p.order_method} />`],
            [t.amount, money(locale, p.payment_amount, currency)],
            [t.refunded, money(locale, p.refunded_amount, currency)],
            [t.card, p.card_number],
            [t.payer, data.customer_info?.payer_name],
            [t.error, p.error_code ? `${p.error_code} ${p.error_description ?? ''}` : ''],
            ...(disputeId ? [[t.disputes, html`<a href=${`#/disputes/${disputeId}`}><code>${disputeId}</code></a>`]] : []),
          ]}
        />
      </section>
      <section class="card">
        <h2>${t.fees}</h2>
        ${fees.length > 0
          ? html`<ul class="plain">${fees.map((f: Json) => html`<li>${f.fee_type} · ${money(locale, f.value, f.currency)} · ${t.payer}: ${f.payer}</li>`)}</ul>`
          : html`<p class="muted">${t.none}</p>`}
        <p>${t.fees}: ${money(locale, data.fee_info.total_fee_values, currency)}</p>
        <h2>${t.fx}</h2>
        ${fx ? html`<${Facts} items=${[[`${fx.original_currency} → ${fx.counter_currency}`, fx.rate], [t.date, fx.rate_timestemp]]} />` : html`<p class="muted">${t.none}</p>`}
      </section>
      <section class="card">
        <h2>${t.history}</h2>
        <ol class="timeline">
          ${history.map((h: Json) => html`<li><${StatusBadge} status=${h.status} /> <time>${when(locale, h.timestamp)}</time></li>`)}
        </ol>
      </section>
      <section class="card">
        <h2>${t.refunds}</h2>
        ${refunds.length === 0
          ? html`<p class="muted">${t.noRefunds}</p>`
          : html`<ul class="plain refunds">${refunds.map((r: Json) => html`<li>#${r.refund_id} <${StatusBadge} status=${r.refund_status} /> ${money(locale, r.amount, r.currency)} · ${when(locale, r.created_at)}</li>`)}</ul>`}
      </section>
    </div>`;
}
