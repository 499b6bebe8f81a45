import { randomBytes } from 'node:crypto';
import { compactDecrypt, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import type { CreateCardInput, CreateCardRequest } from './schemas';

/**
 * Browser-side card encryption (docs/security.md, "Card data in the browser"). Each merchant has an
 * RSA key pair (RSA-OAEP-256, 2048 bits) made on first use; Colibri publishes the public half, the
 * library (`Colibri.encryptCard`) encrypts the card in the shopper's browser as a compact JWE
 * (RSA-OAEP-256 with A256GCM), and `POST /checkout/card` takes that JWE instead of the number and CVV,
 * so the merchant's server only ever relays ciphertext it cannot read. The private half is kept
 * encrypted with the master key, like card numbers. `jose` does the decryption.
 */

export const CARD_KEY_ALGORITHM = 'RSA-OAEP-256';
export const CARD_CONTENT_ENCRYPTION = 'A256GCM';

/** The published key, as `GET /checkout/card-encryption-key/<contract_id>` answers it. */
export interface PublishedCardKey {
  kid: string;
  alg: typeof CARD_KEY_ALGORITHM;
  enc: typeof CARD_CONTENT_ENCRYPTION;
  jwk: { kty: 'RSA'; n: string; e: string; kid: string; alg: string; use: string };
}

/** What an encrypted card holds; the expiry and holder may travel in the clear instead. */
export interface DecryptedCard {
  number: string;
  cvv: string;
  exp_month?: string | number;
  exp_year?: string | number;
  holder_name?: string;
}

/**
 * The merchant's public key, made on first use. Concurrent first calls agree on one pair: the
 * insert keeps whichever landed first (one key per merchant) and every caller reads that one.
 * @example const key = await cardEncryptionKey(ctx, merchantId); // { kid: 'ce_…', alg: 'RSA-OAEP-256', enc: 'A256GCM', jwk }
 */
export async function cardEncryptionKey(ctx: AppContext, merchantId: string): Promise<PublishedCardKey> {
  const existing = await ctx.db.selectFrom('card_encryption_keys').select(['kid', 'public_jwk']).where('merchant_id', '=', merchantId).executeTakeFirst();
  if (existing) return published(existing.kid, existing.public_jwk);
  const kid = `ce_${randomBytes(12).toString('base64url')}`;
  const { publicKey, privateKey } = await generateKeyPair(CARD_KEY_ALGORITHM, { modulusLength: 2048, extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: CARD_KEY_ALGORITHM, use: 'enc' };
  const sealed = ctx.secretBox.encrypt(JSON.stringify(await exportJWK(privateKey)));
  await ctx.db
    .insertInto('card_encryption_keys')
    .values({ kid, merchant_id: merchantId, public_jwk: JSON.stringify(publicJwk), private_key_ciphertext: sealed.ciphertext, master_key_id: sealed.keyId })
    .onConflict((oc) => oc.column('merchant_id').doNothing())
    .execute();
  const row = await ctx.db.selectFrom('card_encryption_keys').select(['kid', 'public_jwk']).where('merchant_id', '=', merchantId).executeTakeFirstOrThrow();
  return published(row.kid, row.public_jwk);
}

function published(kid: string, publicJwk: string): PublishedCardKey {
  const jwk = JSON.parse(publicJwk) as JWK;
  return { kid, alg: CARD_KEY_ALGORITHM, enc: CARD_CONTENT_ENCRYPTION, jwk: { kty: 'RSA', n: jwk.n ?? '', e: jwk.e ?? '', kid, alg: CARD_KEY_ALGORITHM, use: 'enc' } };
}

/**
 * Decrypts an encrypted card with the calling merchant's key. Anything wrong (not a JWE, another
 * algorithm, another merchant's key, a tampered ciphertext, a payload without number and CVV) is one
 * field error that says nothing about which check failed.
 * @example const card = await decryptCard(ctx, merchantId, body.encrypted_card); // { number, cvv, … }
 */
export async function decryptCard(ctx: AppContext, merchantId: string, jwe: string): Promise<DecryptedCard> {
  const invalid = () => new ApiError('CARD_ENCRYPTION_INVALID');
  const row = await ctx.db.selectFrom('card_encryption_keys').selectAll().where('merchant_id', '=', merchantId).executeTakeFirst();
  if (!row) throw invalid();
  let payload: unknown;
  try {
    const privateJwk = JSON.parse(ctx.secretBox.decrypt(row.master_key_id, row.private_key_ciphertext)) as JWK;
    const key = await importJWK(privateJwk, CARD_KEY_ALGORITHM);
    const { plaintext, protectedHeader } = await compactDecrypt(jwe, key, { keyManagementAlgorithms: [CARD_KEY_ALGORITHM], contentEncryptionAlgorithms: [CARD_CONTENT_ENCRYPTION] });
    if (protectedHeader.kid !== row.kid) throw invalid();
    payload = JSON.parse(new TextDecoder().decode(plaintext));
  } catch {
    throw invalid();
  }
  const card = payload as Partial<Record<keyof DecryptedCard, unknown>> | null;
  const text = (value: unknown) => typeof value === 'string' && value.length <= 100;
  const part = (value: unknown) => value === undefined || (typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && value.length <= 4);
  if (!card || typeof card !== 'object' || !text(card.number) || !text(card.cvv) || !part(card.exp_month) || !part(card.exp_year) || !(card.holder_name === undefined || text(card.holder_name))) {
    throw invalid();
  }
  return card as DecryptedCard;
}

/** The card fields in the order the schema lists them, so missing ones are named in that order. */
const CARD_FIELDS = ['public_person_id', 'number', 'exp_month', 'exp_year', 'cvv', 'holder_name'] as const;

/**
 * The card of a `POST /checkout/card` body in the clear: from its own fields, or with the number and
 * CVV (and whatever else it holds) from `encrypted_card`. Every missing field is named at once, with
 * the schema's own code and wording.
 * @example const fields = await resolveCardInput(ctx, merchantId, request.body);
 */
export async function resolveCardInput(ctx: AppContext, merchantId: string, body: CreateCardInput): Promise<CreateCardRequest> {
  const { encrypted_card: encrypted, ...plain } = body;
  let fields: Partial<CreateCardRequest> = plain;
  if (encrypted !== undefined) {
    if (plain.number !== undefined || plain.cvv !== undefined) throw new ApiError('CARD_ENCRYPTION_CONFLICT');
    const card = await decryptCard(ctx, merchantId, encrypted);
    fields = {
      ...plain,
      number: card.number,
      cvv: card.cvv,
      exp_month: card.exp_month ?? plain.exp_month,
      exp_year: card.exp_year ?? plain.exp_year,
      holder_name: card.holder_name ?? plain.holder_name,
    };
  }
  const missing = CARD_FIELDS.filter((field) => fields[field] === undefined);
  if (missing.length > 0) throw ApiError.fields(missing.map((field) => ({ key: 'FIELD_REQUIRED', description: `${field}: is required.` })));
  return fields as CreateCardRequest;
}
