import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { openDatabase } from '../src/db/database';
import { buildContext } from '../src/runtime';
import { AccessList, ACCESS_MAX_AGE_MS } from '../src/auth/access-list';
import { parseSigningKeys, TokenService, TOKEN_TTL_SECONDS } from '../src/auth/tokens';
import { generate } from './checkout-fixtures';
import { VALID_CPF } from './fixtures';
import { describeEachEngine, ENGINES, startTestService, type TestService } from './harness';
import { postFrom as postFromAddress } from './processes';

/**
 * Secrets at rest, token key rotation, revocation and secret rotation (docs/security.md), each
 * exercised through the running service over HTTP and its real database.
 */

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
}
function headerOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()) as Record<string, unknown>;
}

const admin = (service: TestService) => ({ authorization: `Bearer ${service.ctx.adminToken}` });

type Answer = { status: number; body: any; headers: Record<string, string | string[] | undefined> };

/** A JSON POST from a given loopback address, so the limits see different client addresses (processes.ts). */
function postFrom(base: TestService | string, path: string, body: unknown, localAddress: string): Promise<Answer> {
  return postFromAddress(typeof base === 'string' ? base : base.baseUrl, path, body, localAddress);
}

/** `POST /auth` from a given loopback address. */
function login(service: TestService | string, apiKey: string, apiSecret: string, localAddress = '127.0.0.1'): Promise<Answer> {
  return postFrom(service, '/auth', { apiKey, apiSecret }, localAddress);
}

/** The dashboard's sign-in from a given loopback address. */
function dashboardSignIn(service: TestService | string, apiKey: string, apiSecret: string, localAddress: string): Promise<Answer> {
  return postFrom(service, '/dashboard/api/session', { apiKey, apiSecret }, localAddress);
}

describeEachEngine('token signing keys', (service) => {
  it('stores the signing key encrypted with the master key, never in clear, and names it in every token', async () => {
    const rows = await service().ctx.db.selectFrom('token_signing_keys').selectAll().execute();
    expect(rows.length).toBeGreaterThanOrEqual(1);
    const plain = await service().ctx.db.selectFrom('settings').selectAll().where('key', '=', 'token_signing_key').executeTakeFirst();
    expect(plain).toBeUndefined();
    for (const row of rows) {
      expect(row.master_key_id).toBe(service().ctx.secretBox.currentKeyId);
      const secret = Buffer.from(service().ctx.secretBox.decrypt(row.master_key_id, row.key_ciphertext), 'base64');
      expect(secret.length).toBe(32);
      expect(row.key_ciphertext).not.toContain(secret.toString('base64'));
    }
    const m = await service().merchant();
    expect(headerOf(m.token)).toMatchObject({ alg: 'HS256', kid: service().ctx.tokens.currentKeyId });
  });

  it('refuses a token signed with the real key but living longer than 5 minutes, or with an unknown kid', async () => {
    const m = await service().merchant();
    const row = await service().ctx.db.selectFrom('token_signing_keys').selectAll().where('kid', '=', service().ctx.tokens.currentKeyId).executeTakeFirstOrThrow();
    const secret = Buffer.from(service().ctx.secretBox.decrypt(row.master_key_id, row.key_ciphertext), 'base64');
    const now = Math.floor(Date.now() / 1000);
    const sign = (kid: string | undefined, iat: number, exp: number) =>
      new SignJWT({ mid: m.merchant_id })
        .setProtectedHeader(kid === undefined ? { alg: 'HS256' } : { alg: 'HS256', kid })
        .setSubject(m.user.id)
        .setIssuer('colibri')
        .setAudience('colibri-api')
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(secret);
    // The same key with the allowed lifetime passes, so each refusal below is about its own defect.
    expect((await service().get('/me', { token: await sign(row.kid, now, now + TOKEN_TTL_SECONDS) })).status).toBe(200);
    expect((await service().get('/me', { token: await sign(row.kid, now, now + 365 * 86_400) })).status).toBe(401);
    expect((await service().get('/me', { token: await sign(row.kid, now, now + TOKEN_TTL_SECONDS + 1) })).status).toBe(401);
    expect((await service().get('/me', { token: await sign('k_unknown', now, now + 60) })).status).toBe(401);
    expect((await service().get('/me', { token: await sign(undefined, now, now + 60) })).status).toBe(401);
    const noIat = await new SignJWT({ mid: m.merchant_id })
      .setProtectedHeader({ alg: 'HS256', kid: row.kid })
      .setSubject(m.user.id)
      .setIssuer('colibri')
      .setAudience('colibri-api')
      .setExpirationTime(now + 60)
      .sign(secret);
    expect((await service().get('/me', { token: noIat })).status).toBe(401);
  });

  it('rotates: the new key signs, tokens of the old key stay valid, and another process learns the new key at once', async () => {
    const m = await service().merchant();
    const before = m.token;
    const other = await TokenService.load(service().ctx.db, service().ctx.secretBox);
    // Issued before the rotation and after it in the same second: the new key signs the second one (a
    // token of the second's cache, signed by the old key, is not handed out again).
    const second = Math.floor(Date.now() / 1000) - 1;
    const principal = { userId: m.user.id, merchantId: m.merchant_id };
    const previous = await service().ctx.tokens.issue(principal, second);
    const rotated = await service().post('/admin/token-keys/rotate', undefined, { headers: admin(service()) });
    expect(rotated.status).toBe(200);
    expect(rotated.body.kid).toBe(service().ctx.tokens.currentKeyId);
    expect(headerOf(previous).kid).not.toBe(rotated.body.kid);
    const after = await service().ctx.tokens.issue(principal, second);
    expect(headerOf(after).kid).toBe(rotated.body.kid);
    expect((await service().get('/me', { token: before })).status).toBe(200);
    expect((await service().get('/me', { token: after })).status).toBe(200);
    // A process loaded before the rotation accepts a token of the new key (it reads the keys again).
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    expect(await other.verify(after)).toEqual({ userId: m.user.id, merchantId: m.merchant_id });
    expect((await service().post('/admin/token-keys/rotate')).status).toBe(401);
  });

  it('takes keys from configuration: the first signs, the others verify, and an unlisted kid is refused', async () => {
    const k1 = randomBytes(32).toString('base64');
    const k2 = randomBytes(32).toString('base64');
    const old = await TokenService.load(service().ctx.db, service().ctx.secretBox, `k1:${k1}`);
    const current = await TokenService.load(service().ctx.db, service().ctx.secretBox, `k2:${k2},k1:${k1}`);
    const principal = { userId: 'u', merchantId: 'm' };
    const fromOld = await old.issue(principal);
    const fromCurrent = await current.issue(principal);
    expect(headerOf(fromCurrent).kid).toBe('k2');
    expect(await current.verify(fromOld)).toEqual(principal);
    expect(await old.verify(fromCurrent)).toBeNull();
    expect(claimsOf(fromCurrent).exp).toBe((claimsOf(fromCurrent).iat as number) + TOKEN_TTL_SECONDS);
    expect(() => parseSigningKeys('k1:c2hvcnQ=')).toThrow(/at least 32 bytes/);
  });
});

describeEachEngine('revocation: disabling merchants and users', (service) => {
  it('answers POST /admin/merchants with exactly the contract shape', async () => {
    const created = await service().post('/admin/merchants', { name: 'Loja Contrato' }, { headers: admin(service()) });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['api_key', 'api_secret', 'contract_id', 'merchant_id', 'payout_contract_id', 'user', 'webhook_secret']);
    expect(Object.keys(created.body.user).sort()).toEqual(['enable', 'id', 'merchant_id', 'name', 'open', 'roles', 'username']);
    expect(created.body.webhook_secret).toMatch(/^whsec_/);
    expect(created.body.payout_contract_id).toEqual(expect.any(String));
    expect(created.body.user).toMatchObject({ enable: true, open: true, roles: ['MERCHANT_ADMIN'], merchant_id: created.body.merchant_id, name: 'Loja Contrato' });
  });

  it('a disabled merchant loses its tokens, refresh tokens and logins at once; enabling restores them', async () => {
    const m = await service().merchant();
    const person = await service().post('/checkout/person', { name: 'Ana', email: 'ana@example.com', tax_id: VALID_CPF, tax_id_type: 'CPF' }, { token: m.token });
    expect(person.status).toBe(200);
    const refresh = person.body.refresh_token as string;
    const disabled = await service().post(`/admin/merchants/${m.merchant_id}/disable`, undefined, { headers: admin(service()) });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toEqual({ merchant_id: m.merchant_id, enabled: false });
    expect((await service().get('/me', { token: m.token })).status).toBe(401);
    expect((await service().get('/me', { token: refresh })).status).toBe(401);
    const refused = await service().post('/checkout/person', { name: 'Ana', email: 'ana@example.com', tax_id: VALID_CPF, tax_id_type: 'CPF' }, { token: refresh });
    expect(refused.status).toBe(401);
    expect(refused.body.refresh_token).toBeUndefined();
    expect((await login(service(), m.api_key, m.api_secret)).status).toBe(401);

    expect((await service().post(`/admin/merchants/${m.merchant_id}/enable`, undefined, { headers: admin(service()) })).body).toEqual({ merchant_id: m.merchant_id, enabled: true });
    expect((await service().get('/me', { token: m.token })).status).toBe(200);
    expect((await login(service(), m.api_key, m.api_secret)).status).toBe(200);
  });

  it('a disabled user is refused, while another merchant is untouched', async () => {
    const m = await service().merchant();
    const bystander = await service().merchant();
    const res = await service().post(`/admin/users/${m.user.id}/disable`, undefined, { headers: admin(service()) });
    expect(res.body).toEqual({ user_id: m.user.id, merchant_id: m.merchant_id, enabled: false });
    expect((await service().get('/me', { token: m.token })).status).toBe(401);
    expect((await login(service(), m.api_key, m.api_secret)).status).toBe(401);
    expect((await service().get('/me', { token: bystander.token })).status).toBe(200);
    await service().post(`/admin/users/${m.user.id}/enable`, undefined, { headers: admin(service()) });
    expect((await service().get('/me', { token: m.token })).status).toBe(200);
  });

  it('another process stops accepting the tokens within 5 seconds', async () => {
    const m = await service().merchant();
    const principal = { userId: m.user.id, merchantId: m.merchant_id };
    const elsewhere = new AccessList(service().ctx.db);
    expect(await elsewhere.check(principal)).toBe(true);
    const started = Date.now();
    await service().post(`/admin/merchants/${m.merchant_id}/disable`, undefined, { headers: admin(service()) });
    while ((await elsewhere.check(principal)) && Date.now() - started < 6_000) await new Promise((resolve) => setTimeout(resolve, 100));
    const elapsed = Date.now() - started;
    expect(await elsewhere.check(principal)).toBe(false);
    expect(elapsed).toBeLessThan(5_000);
    expect(elapsed).toBeLessThanOrEqual(ACCESS_MAX_AGE_MS + 1_000);
  });

  it('answers 404 for an unknown merchant or user and 401 without the admin token', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    expect((await service().post(`/admin/merchants/${id}/disable`, undefined, { headers: admin(service()) })).status).toBe(404);
    expect((await service().post(`/admin/users/${id}/disable`, undefined, { headers: admin(service()) })).status).toBe(404);
    const m = await service().merchant();
    expect((await service().post(`/admin/merchants/${m.merchant_id}/disable`, undefined, { token: m.token })).status).toBe(401);
    expect((await service().get('/me', { token: m.token })).status).toBe(200);
  });
});

describeEachEngine(
  'API secret rotation',
  (service) => {
    it('issues a new secret; the old one works during the grace period only', async () => {
      const m = await service().merchant();
      const rotated = await service().post('/auth/secret/rotate', undefined, { token: m.token });
      expect(rotated.status).toBe(200);
      expect(rotated.body.api_key).toBe(m.api_key);
      expect(rotated.body.api_secret).not.toBe(m.api_secret);
      expect(Date.parse(rotated.body.previous_secret_expires_at) - Date.now()).toBeLessThanOrEqual(2_000);
      expect((await login(service(), m.api_key, rotated.body.api_secret)).status).toBe(200);
      expect((await login(service(), m.api_key, m.api_secret)).status).toBe(200);
      const row = await service().ctx.db.selectFrom('users').selectAll().where('id', '=', m.user.id).executeTakeFirstOrThrow();
      expect(JSON.stringify(row)).not.toContain(rotated.body.api_secret);
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      expect((await login(service(), m.api_key, m.api_secret)).status).toBe(401);
      expect((await login(service(), m.api_key, rotated.body.api_secret)).status).toBe(200);
      // A second rotation ends the first secret's grace: only the newest two can ever work.
      const again = await service().post('/auth/secret/rotate', undefined, { token: m.token });
      expect((await login(service(), m.api_key, again.body.api_secret)).status).toBe(200);
      expect((await login(service(), m.api_key, rotated.body.api_secret)).status).toBe(200);
    });
  },
  { env: { COLIBRI_API_SECRET_GRACE_SECONDS: '2' } },
);

describeEachEngine(
  'POST /auth login limits',
  (service) => {
    it('counts failures per key and address: the owner at another address still logs in', async () => {
      const m = await service().merchant();
      for (let i = 0; i < 3; i += 1) expect((await login(service(), m.api_key, 'wrong', '127.0.7.7')).status).toBe(401);
      const limited = await login(service(), m.api_key, m.api_secret, '127.0.7.7');
      expect(limited.status).toBe(429);
      expect(limited.body.errors).toEqual([{ code: '00.00.0006', description: expect.any(String) }]);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await login(service(), m.api_key, m.api_secret, '127.0.9.9')).status).toBe(200);
    });

    it('does not count successes against the failure limits', async () => {
      const m = await service().merchant();
      for (let i = 0; i < 12; i += 1) expect((await login(service(), m.api_key, m.api_secret, '127.0.20.1')).status).toBe(200);
    });

    it('limits failures per address across keys', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i += 1) statuses.push((await login(service(), `ck_guess_${i}`, 'x', '127.0.30.1')).status);
      expect(statuses.slice(0, 6)).toEqual([401, 401, 401, 401, 401, 401]);
      expect(statuses[6]).toBe(429);
      const m = await service().merchant();
      expect((await login(service(), m.api_key, m.api_secret, '127.0.31.1')).status).toBe(200);
    });

    it("counts the dashboard's sign-in failures with those of POST /auth, and not its successes", async () => {
      const m = await service().merchant();
      for (let i = 0; i < 12; i += 1) expect((await dashboardSignIn(service(), m.api_key, m.api_secret, '127.0.50.1')).status).toBe(200);
      expect((await dashboardSignIn(service(), m.api_key, 'wrong', '127.0.50.1')).status).toBe(401);
      expect((await login(service(), m.api_key, 'wrong', '127.0.50.1')).status).toBe(401);
      expect((await dashboardSignIn(service(), m.api_key, 'wrong', '127.0.50.1')).status).toBe(401);
      // Three failures for the key at this address, through either door: both refuse it now.
      const limited = await dashboardSignIn(service(), m.api_key, m.api_secret, '127.0.50.1');
      expect(limited.status).toBe(429);
      expect(limited.body.errors).toEqual([{ code: '00.00.0006', description: expect.any(String) }]);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.headers['set-cookie']).toBeUndefined();
      expect((await login(service(), m.api_key, m.api_secret, '127.0.50.1')).status).toBe(429);
      expect((await dashboardSignIn(service(), m.api_key, m.api_secret, '127.0.51.1')).status).toBe(200);
    });

    it('has a ceiling for successes per key', async () => {
      const m = await service().merchant();
      const statuses: number[] = [];
      for (let i = 0; i < 16; i += 1) statuses.push((await login(service(), m.api_key, m.api_secret, `127.0.40.${1 + i}`)).status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(15);
      expect(statuses[15]).toBe(429);
    });

  },
  {
    env: {
      COLIBRI_AUTH_FAILURES_PER_KEY_AND_ADDRESS: '3',
      COLIBRI_AUTH_FAILURES_PER_ADDRESS: '6',
      COLIBRI_AUTH_SUCCESSES_PER_KEY: '15',
    },
  },
);

const LIMIT_ENV = { COLIBRI_AUTH_FAILURES_PER_KEY_AND_ADDRESS: '3', COLIBRI_PAY_CARD_LIMIT_PER_ADDRESS: '4' };

// The PostgreSQL store is what makes the limits hold across processes; PGlite serves one process.
if (ENGINES.includes('postgres')) {
  describe('sign-in and card limits across processes [postgres]', () => {
    it('counts failures and card attempts made through one process in another', async () => {
      const first = await startTestService('postgres', { env: LIMIT_ENV });
      try {
        const url = first.database.url;
        if (!url) throw new Error('no database url');
        const handle = await openDatabase({ engine: 'postgres', url });
        const ctx = await buildContext(first.config, handle, first.ctx.adminToken);
        const second = await buildApp(ctx, { logger: false });
        await second.listen({ host: '127.0.0.1', port: 0 });
        try {
          const address = second.server.address();
          if (!address || typeof address === 'string') throw new Error('no address');
          const m = await first.merchant();
          for (let i = 0; i < 3; i += 1) expect((await login(first, m.api_key, 'wrong', '127.0.60.1')).status).toBe(401);
          expect((await login(`http://127.0.0.1:${address.port}`, m.api_key, m.api_secret, '127.0.60.1')).status).toBe(429);
          expect((await login(`http://127.0.0.1:${address.port}`, m.api_key, m.api_secret, '127.0.60.2')).status).toBe(200);

          // The dashboard's sign-in, alternating between the two processes.
          const other = `http://127.0.0.1:${address.port}`;
          const statuses: number[] = [];
          for (let i = 0; i < 4; i += 1) statuses.push((await dashboardSignIn(i % 2 === 0 ? first : other, m.api_key, 'wrong', '127.0.61.1')).status);
          expect(statuses).toEqual([401, 401, 401, 429]);

          // The hosted page's card attempts: two through each process, the fifth refused by either.
          const checkout = await generate(first, m, { method: 'CREDITCARD' });
          const card = (base: TestService | string) => postFrom(base, `/pay/${checkout.checkout_id}/card`, { number: 'x' }, '127.0.62.1');
          const cards = [await card(first), await card(other), await card(first), await card(other)].map((r) => r.status);
          expect(cards).toEqual([400, 400, 400, 400]);
          expect((await card(first)).status).toBe(429);
          expect((await card(other)).status).toBe(429);
          expect((await postFrom(other, `/pay/${checkout.checkout_id}/card`, { number: 'x' }, '127.0.62.2')).status).toBe(400);
        } finally {
          await second.close();
          await handle.close();
        }
      } finally {
        await first.close();
      }
    });
  });
}
