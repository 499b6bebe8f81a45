import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import pino from 'pino';
import { expect, it } from 'vitest';
import { createSecretBox } from '../src/lib/secret-box';
import { isUuid } from '../src/lib/identifiers';
import { loggerOptions } from '../src/logger';
import { findCard, processorCard } from '../src/vault/lookup';
import { describeEachEngine } from './harness';
import { cardBody, cardsOf, CVV_FAILURE_CARD, newPerson, wholeDatabaseText } from './vault-fixtures';

// Card data at rest (encrypted, key rotation) and in logs; the routes' own rules are in vault.test.ts.
describeEachEngine('card data at rest', (service) => {
  it('keeps the number only encrypted and the CVV nowhere', async () => {
    const number = '5555555555554444';
    const cvv = '987';
    const m = await service().merchant();
    const personId = await newPerson(service(), m);
    const response = await service().post('/checkout/card', cardBody(personId, { number, cvv, exp_month: 11 }), {
      token: m.token,
      headers: { 'idempotency-key': 'at-rest-1' },
    });
    expect(response.status, response.text).toBe(200);

    const [row] = await cardsOf(service(), m.merchant_id);
    if (!row) throw new Error('no card stored');
    // Every column is accounted for, so a new column cannot slip card data in unnoticed.
    expect(Object.keys(row).sort()).toEqual(
      ['bin', 'created_at', 'exp_month', 'exp_year', 'holder_name', 'id', 'key_id', 'last4', 'masked_number', 'merchant_id', 'number_ciphertext', 'person_id', 'scheme', 'status'].sort(),
    );
    for (const [column, value] of Object.entries(row)) {
      const text = value instanceof Date ? value.toISOString() : String(value);
      expect(text, column).not.toContain(number);
      expect(text, column).not.toContain(number.slice(4, 12));
    }
    // The clear columns hold no CVV; the others are identifiers, a key id and the ciphertext, whose
    // content is exactly the encrypted number (nonce, tag and 16 bytes), with no room for the CVV.
    for (const column of ['bin', 'last4', 'masked_number', 'exp_month', 'exp_year', 'holder_name', 'scheme', 'status'] as const) {
      expect(String(row[column]), column).not.toContain(cvv);
    }
    expect([row.id, row.merchant_id, row.person_id].every((id) => isUuid(id))).toBe(true);
    expect(row.key_id).toBe(service().ctx.secretBox.currentKeyId);
    expect(Buffer.from(row.number_ciphertext, 'base64')).toHaveLength(12 + 16 + number.length);
    expect(service().ctx.secretBox.decrypt(row.key_id, row.number_ciphertext)).toBe(number);
    expect(row).toMatchObject({ bin: '555555', last4: '4444', masked_number: '555555******4444', exp_month: 11, holder_name: 'MARIA SILVA' });

    // A single flipped byte anywhere in the stored ciphertext fails to decrypt, never yielding another number.
    const raw = Buffer.from(row.number_ciphertext, 'base64');
    for (const index of [0, 11, 12, 27, 28, raw.length - 1]) {
      const tampered = Buffer.from(raw);
      tampered[index] = (tampered[index] ?? 0) ^ 0x80;
      expect(() => service().ctx.secretBox.decrypt(row.key_id, tampered.toString('base64')), `byte ${index}`).toThrow();
    }

    // Nowhere in the database (idempotency records, processor books, events…) is the number in the clear,
    // and no column anywhere is named after the CVV.
    const everything = await wholeDatabaseText(service());
    expect(everything).toContain(row.number_ciphertext);
    expect(everything).not.toContain(number);
    expect(everything.toLowerCase()).not.toContain('"cvv"');
    const cvvColumns = await sql<{ column_name: string }>`
      select column_name from information_schema.columns where table_schema = current_schema() and column_name ilike '%cvv%'`.execute(service().ctx.db);
    expect(cvvColumns.rows).toEqual([]);

    // The idempotent replay answers the same masked card, without storing a second one.
    const replay = await service().post('/checkout/card', cardBody(personId, { number, cvv, exp_month: 11 }), {
      token: m.token,
      headers: { 'idempotency-key': 'at-rest-1' },
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.public_card_id).toBe(response.body.public_card_id);
    expect(await cardsOf(service(), m.merchant_id)).toHaveLength(1);
  });

  it('reads cards stored under the old key after a rotation to a new current key', async () => {
    const m = await service().merchant();
    const personId = await newPerson(service(), m);
    const response = await service().post('/checkout/card', cardBody(personId, { number: '6362970000457013' }), { token: m.token });
    expect(response.status, response.text).toBe(200);
    const row = await findCard(service().ctx.db, m.merchant_id, response.body.public_card_id);
    if (!row) throw new Error('no card stored');

    // The test service runs in sandbox without COLIBRI_MASTER_KEY, so its key was generated into the data directory.
    const oldKey = Buffer.from(readFileSync(join(service().config.dataDir, 'master.key'), 'utf8').trim(), 'base64');
    const rotated = createSecretBox(randomBytes(32), [oldKey]);
    expect(rotated.currentKeyId).not.toBe(row.key_id);
    expect(processorCard(rotated, row).number).toBe('6362970000457013');
    expect(() => createSecretBox(randomBytes(32)).decrypt(row.key_id, row.number_ciphertext)).toThrow(/not configured/);
  });
});

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(...String(chunk).split('\n').filter((line) => line.trim() !== ''));
    done();
  },
});

/**
 * Every string value of a log line except the listening address and the request id, which are
 * arbitrary digits (a port, a random UUID) that a short CVV could match by chance.
 */
function stringsOf(value: unknown, key = ''): string[] {
  if (typeof value === 'string') return ['host', 'remoteAddress', 'reqId'].includes(key) ? [] : [value];
  if (Array.isArray(value)) return value.flatMap((v) => stringsOf(v));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => stringsOf(v, k));
  return [];
}

describeEachEngine(
  'card data in logs',
  (service) => {
    it('never logs the number or the CVV, whatever the outcome', async () => {
      const m = await service().merchant();
      const personId = await newPerson(service(), m);
      const cvv = '7319';
      const amex = '378282246310005';
      const attempts: [Record<string, unknown>, number][] = [
        [{ number: amex, cvv }, 200],
        [{ number: amex, cvv, exp_month: 13 }, 400],
        [{ number: `${amex.slice(0, -1)}6`, cvv }, 400],
        [{ number: CVV_FAILURE_CARD, cvv: cvv.slice(0, 3) }, 400],
      ];
      for (const [index, [overrides, status]] of attempts.entries()) {
        const response = await service().post('/checkout/card', cardBody(personId, overrides), { token: m.token, headers: { 'x-request-id': `card-log-${index}` } });
        expect(response.status, response.text).toBe(status);
      }
      await service().post('/sandbox/processor/faults', { operation: 'verifyCard', fault: 'UNAVAILABLE', times: 1 }, { token: m.token });
      const unavailable = await service().post('/checkout/card', cardBody(personId, { number: amex, cvv }), { token: m.token, headers: { 'x-request-id': 'card-log-502' } });
      expect(unavailable.status).toBe(502);

      const ofCards = lines.filter((line) => line.includes('card-log-'));
      expect(ofCards.length).toBeGreaterThanOrEqual(10);
      const text = lines.join('\n');
      for (const secret of [amex, `${amex.slice(0, -1)}6`, CVV_FAILURE_CARD]) expect(text).not.toContain(secret);
      for (const line of lines) {
        // A test service's own address (in "Server listening at …") has a random port, left out likewise.
        for (const value of stringsOf(JSON.parse(line)).map((v) => v.replace(/http:\/\/127\.0\.0\.1:\d+/g, ''))) {
          expect(value).not.toContain(cvv);
          expect(value).not.toContain(cvv.slice(0, 3));
        }
      }
    });
  },
  { logger: pino({ ...loggerOptions('info') }, sink) },
);
