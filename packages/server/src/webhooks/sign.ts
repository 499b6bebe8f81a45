import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): each secret gives
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the base64-decoded part of the
 * `whsec_` secret. The official library signs, so what Colibri sends is by construction what the
 * merchants' verifiers (the same library, in every language) accept.
 */

/** Constructing a Webhook decodes its key; secrets are few and reused, so each is decoded once. */
const signers = new Map<string, Webhook>();
const MAX_CACHED_SIGNERS = 10_000;

function signerFor(secret: string): Webhook {
  let signer = signers.get(secret);
  if (!signer) {
    if (signers.size >= MAX_CACHED_SIGNERS) signers.clear();
    signer = new Webhook(secret);
    signers.set(secret, signer);
  }
  return signer;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The three Standard Webhooks headers for one attempt. With several secrets (the overlap after a
 * rotation) the signature header lists one `v1,` entry per secret, separated by spaces, and a
 * receiver holding either secret verifies it.
 * @example
 * signCallback(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], eventId, new Date(), body)
 * // { 'webhook-id': eventId, 'webhook-timestamp': '1763800000', 'webhook-signature': 'v1,K5oZ…=' }
 */
export function signCallback(secrets: readonly string[], id: string, at: Date, body: string): SignedHeaders {
  if (secrets.length === 0) throw new Error('no signing secret');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => signerFor(secret).sign(id, at, body)).join(' '),
  };
}
