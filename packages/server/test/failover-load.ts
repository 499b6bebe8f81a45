import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Merchant traffic for the failover test: clients that pay, pre-authorise and capture, and refund, each
 * request with its own Idempotency-Key, retried with that key as a careful client does (after a 503, for
 * as long as Retry-After says, up to 2 s; after a 409 while the first attempt with the key is in flight).
 * Every answer 200 is kept as acknowledged with what was sent, for the checks after the fault, and every
 * answer that was not is kept too, to check its body.
 */

export type Kind = 'payment' | 'capture' | 'refund';

export interface Acknowledged {
  kind: Kind;
  /** The payment's flow: `pay` (captured at once), `capture` (pre-authorised, then captured), `refund` (paid, then partly refunded). */
  flow: 'pay' | 'capture' | 'refund';
  reference: string;
  path: string;
  key: string;
  body: Record<string, unknown>;
  answer: Record<string, any>;
  /** Amount sent, in minor units. */
  amountMinor: bigint;
  at: number;
}

export interface Refused {
  path: string;
  status: number;
  code: string | undefined;
  retryAfter: string | null;
  /** The answer's start, when it has no error code. */
  text?: string;
  at: number;
}

export interface Merchant {
  base: string;
  token: string;
  contractId: string;
  personId: string;
  cardId: string;
  notifyUrl: string;
}

export interface Load {
  readonly acknowledged: Acknowledged[];
  readonly refused: Refused[];
  /** Requests that got no HTTP answer at all (the service's process unreachable, or over 35 s). */
  readonly unanswered: string[];
  /** Sends one payment now, alone; answers when it is acknowledged. */
  pay(reference: string, flow?: Acknowledged['flow'], deadlineMs?: number): Promise<Acknowledged>;
  /** Flows completed so far. */
  flows(): number;
  stop(): Promise<void>;
}

const minor = (amount: string) => BigInt(amount.replace('.', ''));

/** Starts `clients` clients, each running the three flows in turn until `stop()`. */
export function startLoad(m: Merchant, clients: number, prefix: string): Load {
  const acknowledged: Acknowledged[] = [];
  const refused: Refused[] = [];
  const unanswered: string[] = [];
  let stopping = false;
  let done = 0;
  let sequence = 0;

  async function post(path: string, key: string, body: Record<string, unknown>, deadlineMs = 120_000): Promise<Record<string, any>> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      let wait = 200;
      try {
        const response = await fetch(`${m.base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-auth-token': m.token, 'idempotency-key': key },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(35_000),
        });
        const text = await response.text();
        const parsed = (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, any>;
        if (response.status === 200) return parsed;
        if (response.status !== 409 && response.status < 500) throw new Error(`${path} ${key}: ${response.status} ${text}`);
        if (response.status !== 409) {
          const retryAfter = response.headers.get('retry-after');
          const code = (parsed.errors as { code?: string }[] | undefined)?.[0]?.code;
          refused.push({ path, status: response.status, code, retryAfter, ...(code ? {} : { text: text.slice(0, 300) }), at: Date.now() });
          if (retryAfter && Number(retryAfter) > 0) wait = Math.min(Number(retryAfter) * 1000, 2_000);
        }
      } catch (error) {
        if (String(error).includes(`${key}:`)) throw error;
        unanswered.push(`${path} ${key}: ${String(error)}`);
      }
      if (Date.now() > deadline) throw new Error(`${path} ${key}: not acknowledged in ${deadlineMs} ms`);
      await sleep(wait);
    }
  }

  async function status(token: string, wanted: readonly string[]): Promise<string> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        const response = await fetch(`${m.base}/transactionDetails/${token}`, { headers: { 'x-auth-token': m.token }, signal: AbortSignal.timeout(35_000) });
        if (response.ok) {
          const current = ((await response.json()) as { general_info: { transaction_status: string } }).general_info.transaction_status;
          if (wanted.includes(current)) return current;
          if (!['CREATED', 'PROCESSING'].includes(current)) throw new Error(`${token}: ${current}, not ${wanted.join('/')}`);
        } else if (response.status < 500) throw new Error(`${token}: ${response.status} ${await response.text()}`);
      } catch (error) {
        if (String(error).includes(`${token}:`)) throw error;
      }
      if (Date.now() > deadline) throw new Error(`${token} never reached ${wanted.join('/')}`);
      await sleep(100);
    }
  }

  const record = (entry: Omit<Acknowledged, 'at'>) => {
    const full = { ...entry, at: Date.now() };
    acknowledged.push(full);
    return full;
  };

  async function pay(reference: string, flow: Acknowledged['flow'] = 'pay', deadlineMs?: number): Promise<Acknowledged> {
    const amount = `${10 + (reference.length % 7)}.${String(Math.floor(Math.random() * 100)).padStart(2, '0')}`;
    const body = {
      contract_id: m.contractId,
      reference_id: reference,
      notification_url: `${m.notifyUrl}/${reference}`,
      public_person_id: m.personId,
      public_card_id: m.cardId,
      payment: { amount, method: 'CREDITCARD', asset: 'BRL', installments: 1, ...(flow === 'capture' ? { delay_capture: true } : {}) },
    };
    const key = `${reference}-pay`;
    const answer = await post('/checkout/sendPayment', key, body, deadlineMs);
    return record({ kind: 'payment', flow, reference, path: '/checkout/sendPayment', key, body, answer, amountMinor: minor(amount) });
  }

  async function flow(n: number): Promise<void> {
    const kind = (['pay', 'capture', 'refund'] as const)[n % 3]!;
    const reference = `${prefix}-${n}`;
    const payment = await pay(reference, kind);
    const token = payment.answer.payment_token as string;
    if (kind === 'capture') {
      await status(token, ['PRE_AUTHORIZED']);
      const amount = '5.00';
      const path = `/checkout/${token}/capture`;
      const answer = await post(path, `${reference}-capture`, { amount: 5 });
      record({ kind: 'capture', flow: kind, reference, path, key: `${reference}-capture`, body: { amount: 5 }, answer, amountMinor: minor(amount) });
    } else if (kind === 'refund') {
      await status(token, ['PAID']);
      const body = { payment_token: token, amount: 1.5, notification_url: `${m.notifyUrl}/${reference}-refund` };
      const answer = await post('/refund', `${reference}-refund`, body);
      record({ kind: 'refund', flow: kind, reference, path: '/refund', key: `${reference}-refund`, body, answer, amountMinor: 150n });
    }
    done += 1;
  }

  const running = Array.from({ length: clients }, async () => {
    while (!stopping) await flow(sequence++);
  });
  // A failing client ends the run at stop() with its error; the others go on meanwhile.
  const all = Promise.all(running);
  all.catch(() => undefined);
  return {
    acknowledged,
    refused,
    unanswered,
    pay,
    flows: () => done,
    async stop() {
      stopping = true;
      await all;
    },
  };
}
