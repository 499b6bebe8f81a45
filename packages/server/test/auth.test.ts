import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { expect, it } from 'vitest';
import { Authenticator, USER_CACHE_TTL_MS } from '../src/auth/authenticate';
import { hashSecret } from '../src/auth/secrets';
import { TOKEN_TTL_SECONDS } from '../src/auth/tokens';
import { describeEachEngine, ERROR_TIMESTAMP, type ApiResponse } from './harness';

function expectAccessDenied(response: ApiResponse, path: string) {
  expect(response.status).toBe(401);
  // The spec: a 401 body has timestamp, status, error, message and path only.
  expect(Object.keys(response.body).sort()).toEqual(['error', 'message', 'path', 'status', 'timestamp']);
  expect(response.body).toMatchObject({ status: 401, error: 'Unauthorized', message: 'Access Denied', path });
  expect(response.body.timestamp).toMatch(ERROR_TIMESTAMP);
}

/** The WWW-Authenticate challenge of a 401, its parameters by name (RFC 6750, section 3). */
function challengeOf(response: ApiResponse): Record<string, string> {
  const header = response.headers.get('www-authenticate') ?? '';
  expect(header).toMatch(/^Bearer /);
  return Object.fromEntries([...header.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => [name!, value!.replace(/\\(.)/g, '$1')]));
}

function b64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describeEachEngine('POST /auth and X-Auth-Token', (service) => {
  it('issues a 5-minute token for form-data credentials with the User resource and version', async () => {
    const m = await service().merchant('Loja Auth');
    const form = new FormData();
    form.set('apiKey', m.api_key);
    form.set('apiSecret', m.api_secret);
    const response = await service().post('/auth', undefined, { raw: form });
    expect(response.status).toBe(200);
    expect(response.body.version).toBe(service().ctx.version);
    expect(response.body.user).toEqual({
      id: m.user.id,
      username: m.user.username,
      name: 'Loja Auth',
      enable: true,
      open: true,
      roles: ['MERCHANT_ADMIN'],
      merchant_id: m.merchant_id,
    });
    const [, payload] = String(response.body.token).split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(TOKEN_TTL_SECONDS);
    expect(claims.mid).toBe(m.merchant_id);
    const me = await service().get('/me', { token: response.body.token });
    expect(me.body).toEqual({
      user_id: m.user.id,
      merchant_id: m.merchant_id,
      contracts: [
        { contract_id: m.contract_id, type: 'PAYIN' },
        { contract_id: m.payout_contract_id, type: 'PAYOUT' },
      ],
    });
    // Each merchant sees its own contracts only.
    const other = await service().merchant('Other Shop');
    const otherMe = await service().get('/me', { token: other.token });
    expect(otherMe.body.contracts.map((c: { contract_id: string }) => c.contract_id)).toEqual([other.contract_id, other.payout_contract_id]);
  });

  it('accepts urlencoded and JSON bodies', async () => {
    const m = await service().merchant();
    const urlencoded = await service().post('/auth', undefined, { raw: new URLSearchParams({ apiKey: m.api_key, apiSecret: m.api_secret }) });
    expect(urlencoded.status).toBe(200);
    const json = await service().post('/auth', { apiKey: m.api_key, apiSecret: m.api_secret });
    expect(json.status).toBe(200);
  });

  it('refuses a wrong secret and an unknown key with the same 401 body', async () => {
    const m = await service().merchant();
    expectAccessDenied(await service().post('/auth', { apiKey: m.api_key, apiSecret: `${m.api_secret}x` }), '/auth');
    expectAccessDenied(await service().post('/auth', { apiKey: 'ck_unknown', apiSecret: m.api_secret }), '/auth');
  });

  it('refuses a disabled user', async () => {
    const m = await service().merchant();
    await service().ctx.db.updateTable('users').set({ enabled: false }).where('id', '=', m.user.id).execute();
    expectAccessDenied(await service().post('/auth', { apiKey: m.api_key, apiSecret: m.api_secret }), '/auth');
  });

  it('keeps a user row for a few seconds: a wrong secret is still refused, a disabled user is refused once it expires', async () => {
    const m = await service().merchant();
    const authenticator = new Authenticator(service().ctx.db);
    const start = Date.now();
    expect(await authenticator.authenticate(m.api_key, m.api_secret, start)).toMatchObject({ id: m.user.id });
    await service().ctx.db.updateTable('users').set({ enabled: false }).where('id', '=', m.user.id).execute();
    expect(await authenticator.authenticate(m.api_key, m.api_secret, start + USER_CACHE_TTL_MS - 1)).toMatchObject({ id: m.user.id });
    expect(await authenticator.authenticate(m.api_key, m.api_secret, start + USER_CACHE_TTL_MS)).toBeNull();
    await service().ctx.db.updateTable('users').set({ enabled: true }).where('id', '=', m.user.id).execute();
    expect(await authenticator.authenticate(m.api_key, m.api_secret, start + USER_CACHE_TTL_MS)).toMatchObject({ id: m.user.id });
    // A secret that does not match the cached row is checked against a fresh read (a rotation elsewhere), and refused.
    expect(await authenticator.authenticate(m.api_key, `${m.api_secret}x`, start + USER_CACHE_TTL_MS)).toBeNull();
  });

  it('does not remember unknown keys: a key created after a failed attempt authenticates at once', async () => {
    const authenticator = new Authenticator(service().ctx.db);
    const m = await service().merchant();
    await service().ctx.db.updateTable('users').set({ api_key: 'ck_later' }).where('id', '=', m.user.id).execute();
    expect(await authenticator.authenticate('ck_renamed', m.api_secret)).toBeNull();
    await service().ctx.db.updateTable('users').set({ api_key: 'ck_renamed' }).where('id', '=', m.user.id).execute();
    expect(await authenticator.authenticate('ck_renamed', m.api_secret)).toMatchObject({ id: m.user.id });
  });

  it('stops accepting a cached token the moment it expires', async () => {
    const m = await service().merchant();
    const almostExpired = Math.floor(Date.now() / 1000) - TOKEN_TTL_SECONDS + 2;
    const token = await service().ctx.tokens.issue({ userId: m.user.id, merchantId: m.merchant_id }, almostExpired);
    expect((await service().get('/me', { token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expectAccessDenied(await service().get('/me', { token }), '/me');
  });

  it('stores only a hash of the secret', async () => {
    const m = await service().merchant();
    const row = await service().ctx.db.selectFrom('users').selectAll().where('id', '=', m.user.id).executeTakeFirstOrThrow();
    expect(row.api_secret_hash).toBe(hashSecret(m.api_secret));
    expect(JSON.stringify(row)).not.toContain(m.api_secret);
  });

  it('answers a schema error for missing credentials with one code per field', async () => {
    const response = await service().post('/auth', {});
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { code: '00.01.0001', description: 'apiKey: is required.' },
      { code: '00.01.0001', description: 'apiSecret: is required.' },
    ]);
  });

  it('refuses a missing, expired, tampered, alg-none and foreign-key token', async () => {
    const m = await service().merchant();
    // The good token is verified (and cached) first, so each refusal below also proves the cache is not fooled.
    expect((await service().get('/me', { token: m.token })).status).toBe(200);
    expectAccessDenied(await service().get('/me'), '/me');
    expectAccessDenied(await service().get('/me', { token: '' }), '/me');
    expectAccessDenied(await service().get('/me', { token: 'not-a-jwt' }), '/me');

    const past = Math.floor(Date.now() / 1000) - TOKEN_TTL_SECONDS - 5;
    const expired = await service().ctx.tokens.issue({ userId: m.user.id, merchantId: m.merchant_id }, past);
    expectAccessDenied(await service().get('/me', { token: expired }), '/me');

    const [header, payload, signature] = m.token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    const other = await service().merchant();
    const tampered = `${header}.${b64url({ ...claims, mid: other.merchant_id })}.${signature}`;
    expectAccessDenied(await service().get('/me', { token: tampered }), '/me');

    const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${payload}.`;
    expectAccessDenied(await service().get('/me', { token: none }), '/me');

    const foreign = await new SignJWT({ mid: m.merchant_id })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(m.user.id)
      .setIssuer('colibri')
      .setAudience('colibri-api')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(randomBytes(32));
    expectAccessDenied(await service().get('/me', { token: foreign }), '/me');

    // The untouched token still works, so each refusal above is about its own defect.
    expect((await service().get('/me', { token: m.token })).status).toBe(200);
  });

  it('says why a request was refused in WWW-Authenticate, with the 401 body as the spec has it', async () => {
    const m = await service().merchant();
    const refused = async (response: ApiResponse, path = '/me') => {
      expectAccessDenied(response, path);
      return challengeOf(response);
    };
    // Nothing sent: the challenge alone (RFC 6750, 3.1).
    expect(await refused(await service().get('/me'))).toEqual({ realm: 'colibri' });
    expect(await refused(await service().get('/me', { headers: { authorization: `Bearer ${m.token}` } }))).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('X-Auth-Token header, not Authorization'),
    });
    expect((await refused(await service().get('/me', { token: m.api_secret }))).error_description).toMatch(/^this is an API secret, not an access token: .*POST \/auth/);
    expect((await refused(await service().get('/me', { token: m.api_key }))).error_description).toMatch(/^this is an API key/);
    expect(await refused(await service().get('/me', { token: 'not-a-jwt' }))).toMatchObject({ error: 'invalid_token', error_description: expect.stringMatching(/^malformed access token/) });

    const past = Math.floor(Date.now() / 1000) - TOKEN_TTL_SECONDS - 5;
    const expired = await service().ctx.tokens.issue({ userId: m.user.id, merchantId: m.merchant_id }, past);
    const expiredAt = new Date((past + TOKEN_TTL_SECONDS) * 1000).toISOString();
    expect((await refused(await service().get('/me', { token: expired }))).error_description).toBe(
      `the access token expired at ${expiredAt} (tokens live 5 minutes): get a new one at POST /auth, or use the refresh-token header of the last answer`,
    );
    const foreign = await new SignJWT({ mid: m.merchant_id })
      .setProtectedHeader({ alg: 'HS256', kid: 'k_elsewhere' })
      .setSubject(m.user.id)
      .setIssuer('colibri')
      .setAudience('colibri-api')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(randomBytes(32));
    expect((await refused(await service().get('/me', { token: foreign }))).error_description).toMatch(/signed with a key this service does not know/);
    const [header, payload, signature] = m.token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    const tampered = `${header}.${b64url({ ...claims, mid: randomBytes(8).toString('hex') })}.${signature}`;
    expect((await refused(await service().get('/me', { token: tampered }))).error_description).toMatch(/signature, lifetime or claims were altered/);

    // A wrong secret at /auth: said as a pair, never which of the two was wrong.
    const wrong = await refused(await service().post('/auth', { apiKey: m.api_key, apiSecret: `${m.api_secret}x` }), '/auth');
    expect(wrong).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('do not match an enabled user') });
    expect(await refused(await service().post('/auth', { apiKey: 'ck_unknown', apiSecret: m.api_secret }), '/auth')).toEqual(wrong);

    // The admin API's own realm.
    const admin = await service().get('/admin/stuck-operations');
    expect(admin.status).toBe(401);
    expect(challengeOf(admin)).toEqual({ realm: 'colibri-admin' });
    expect(challengeOf(await service().get('/admin/stuck-operations', { token: m.token }))).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('not a merchant access token') });
    expect(challengeOf(await service().get('/admin/stuck-operations', { headers: { authorization: 'Bearer adm_wrong' } }))).toMatchObject({ error: 'invalid_token' });

    // Disabled after its token was issued.
    const disabled = await service().post(`/admin/users/${m.user.id}/disable`, undefined, { headers: { authorization: `Bearer ${service().ctx.adminToken}` } });
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    await expect
      .poll(async () => {
        const response = await service().get('/me', { token: m.token });
        return response.status === 401 ? challengeOf(response).error_description : `status ${response.status}`;
      }, { timeout: 20_000 })
      .toBe('the access token is of a user or merchant that has been disabled');
  });
});
