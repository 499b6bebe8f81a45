import type { CardEncryptionKey, EncryptCardInput, EncryptCardResult, FieldError } from '../index';
import { luhn } from './validate';

/**
 * `Colibri.encryptCard`: encrypts card data in the shopper's browser under the merchant's published
 * key, so the merchant's server relays `encryptedCard` to `POST /checkout/card` without ever seeing
 * the number or CVV. The result is a compact JWE (RFC 7516) with RSA-OAEP-256 key wrapping and
 * A256GCM content encryption, which the service opens with `jose`.
 *
 * The JWE is assembled here with the browser's own WebCrypto rather than a bundled JOSE library: the
 * five steps below are the whole of it, and the library stays one small script (a JOSE bundle would
 * more than double it). WebCrypto exists only in secure contexts, so the checkout page must be served
 * over https (or from localhost while developing).
 */

const ALG = 'RSA-OAEP-256';
const ENC = 'A256GCM';
const encoder = new TextEncoder();
const keys = new Map<string, Promise<CardEncryptionKey>>();

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The card's own rules, checked before anything is encrypted; every failing field is named. */
function check(input: unknown): { fields: FieldError[]; card?: EncryptCardInput } {
  if (typeof input !== 'object' || input === null) return { fields: [{ field: 'card', message: 'must be an object.' }] };
  const card = input as Record<string, unknown>;
  const fields: FieldError[] = [];
  const number = typeof card.number === 'string' ? card.number.replace(/[ -]/g, '') : '';
  if (!/^[0-9]{12,19}$/.test(number) || !luhn(number)) fields.push({ field: 'number', message: 'must be 12 to 19 digits that pass the Luhn check.' });
  if (typeof card.cvv !== 'string' || !/^[0-9]{3,4}$/.test(card.cvv)) fields.push({ field: 'cvv', message: 'must be 3 or 4 digits.' });
  if (card.expMonth !== undefined && (typeof card.expMonth !== 'string' || !/^(0?[1-9]|1[0-2])$/.test(card.expMonth))) fields.push({ field: 'expMonth', message: 'must be a month from 1 to 12.' });
  if (card.expYear !== undefined && (typeof card.expYear !== 'string' || !/^[0-9]{4}$/.test(card.expYear))) fields.push({ field: 'expYear', message: 'must be four digits, with the century.' });
  if (card.holder !== undefined && (typeof card.holder !== 'string' || card.holder.trim() === '' || card.holder.length > 100)) fields.push({ field: 'holder', message: 'must be 1 to 100 characters.' });
  return fields.length > 0 ? { fields } : { fields, card: { ...(card as unknown as EncryptCardInput), number } };
}

/**
 * Encrypts a card. The key is the one given, or the merchant's (by the contract id of `setUp`), fetched
 * once from the Colibri origin this script came from. The promise never rejects.
 * @example const { encryptedCard, hasErrors } = await encryptCard({ number, cvv, expMonth: '12', expYear: '2030', holder: 'ANA' }, origin, contractId);
 */
export async function encryptCard(input: unknown, colibriOrigin: string | null, contractId: string | undefined): Promise<EncryptCardResult> {
  const checked = check(input);
  const card = checked.card;
  if (!card) return { hasErrors: true, errors: checked.fields };
  try {
    const published = card.publicKey ?? (await keyOf(colibriOrigin, contractId));
    const publicKey = await crypto.subtle.importKey('jwk', { kty: 'RSA', n: published.jwk.n, e: published.jwk.e, alg: ALG, ext: true }, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
    const header = base64url(encoder.encode(JSON.stringify({ alg: ALG, enc: ENC, kid: published.kid })));
    const payload = {
      number: card.number,
      cvv: card.cvv,
      ...(card.expMonth !== undefined ? { exp_month: card.expMonth } : {}),
      ...(card.expYear !== undefined ? { exp_year: card.expYear } : {}),
      ...(card.holder !== undefined ? { holder_name: card.holder } : {}),
    };
    // 1. a fresh content key; 2. wrapped with the merchant's RSA key; 3. a fresh 96-bit IV;
    // 4. AES-GCM over the payload, authenticating the header; 5. the five parts, base64url-encoded.
    const contentKey = crypto.getRandomValues(new Uint8Array(32));
    const wrappedKey = new Uint8Array(await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, publicKey, contentKey));
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const aes = await crypto.subtle.importKey('raw', contentKey, 'AES-GCM', false, ['encrypt']);
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(header), tagLength: 128 }, aes, encoder.encode(JSON.stringify(payload))));
    contentKey.fill(0);
    const encryptedCard = [header, base64url(wrappedKey), base64url(iv), base64url(sealed.subarray(0, sealed.length - 16)), base64url(sealed.subarray(sealed.length - 16))].join('.');
    return { hasErrors: false, encryptedCard, errors: [] };
  } catch (error) {
    return { hasErrors: true, errors: [{ field: '', message: error instanceof Error && error.message.startsWith('Colibri') ? error.message : 'The card could not be encrypted in this browser.' }] };
  }
}

function keyOf(colibriOrigin: string | null, contractId: string | undefined): Promise<CardEncryptionKey> {
  if (!colibriOrigin || !contractId) return Promise.reject(new Error('Colibri: call Colibri.setUp({env, contractId}) before encryptCard, or pass publicKey.'));
  let pending = keys.get(contractId);
  if (!pending) {
    pending = fetch(`${colibriOrigin}/checkout/card-encryption-key/${encodeURIComponent(contractId)}`, { credentials: 'omit', mode: 'cors' }).then(async (response) => {
      if (!response.ok) throw new Error(`Colibri: the card encryption key could not be fetched (${response.status}).`);
      return (await response.json()) as CardEncryptionKey;
    });
    // A failed fetch is not kept, so the next call tries again.
    pending.catch(() => keys.delete(contractId));
    keys.set(contractId, pending);
  }
  return pending;
}
