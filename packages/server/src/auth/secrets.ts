import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys are public identifiers; API secrets are 256-bit random values shown once and stored only
 * as a SHA-256 hash. A slow password hash (scrypt, argon2) protects low-entropy human passwords from
 * guessing; a 256-bit random secret cannot be guessed, so a fast hash keeps the same protection for a
 * stolen database while letting `POST /auth` answer in microseconds.
 */

/** @example newApiKey() // 'ck_4q7GvT…' */
export function newApiKey(): string {
  return `ck_${randomBytes(18).toString('base64url')}`;
}

/** @example newApiSecret() // 'cs_Zp3…' (43 characters of randomness) */
export function newApiSecret(): string {
  return `cs_${randomBytes(32).toString('base64url')}`;
}

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. @example newWebhookSecret() */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** @example hashSecret('cs_…') // 64 hex characters */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares a presented secret with a stored hash in constant time. @example secretMatches('cs_…', row.api_secret_hash) */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** Constant-time equality of two strings of possibly different length. @example constantTimeEqual(a, b) */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
