import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalOf } from '../src/context';
import { describeEachEngine, startTestService, type TestService } from './harness';

/**
 * A merchant-authenticated POST with a visible effect (it creates a merchant row named after the
 * body), so "exactly one effect" can be counted in the database. A slow one widens race windows.
 */
describeEachEngine(
  'Idempotency-Key',
  (service) => {
    const admin = () => ({ authorization: `Bearer ${service().ctx.adminToken}` });
    const countMerchants = async (name: string) =>
      (await service().ctx.db.selectFrom('merchants').select('id').where('name', '=', name).execute()).length;

    it('replays the first status and body for the same key and body', async () => {
      const key = randomUUID();
      const name = `Replay ${key}`;
      const first = await service().post('/admin/merchants', { name }, { headers: { ...admin(), 'idempotency-key': key } });
      const second = await service().post('/admin/merchants', { name }, { headers: { ...admin(), 'idempotency-key': key } });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.text).toBe(first.text);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(await countMerchants(name)).toBe(1);
    });

    it('answers 422 for the same key with another body, and changes nothing', async () => {
      const key = randomUUID();
      await service().post('/admin/merchants', { name: `A ${key}` }, { headers: { ...admin(), 'idempotency-key': key } });
      const conflict = await service().post('/admin/merchants', { name: `B ${key}` }, { headers: { ...admin(), 'idempotency-key': key } });
      expect(conflict.status).toBe(422);
      expect(conflict.body.errors).toEqual([{ code: '00.06.0001', description: expect.any(String) }]);
      expect(await countMerchants(`B ${key}`)).toBe(0);
    });

    it('has exactly one effect when the same key arrives concurrently', async () => {
      const m = await service().merchant();
      const key = randomUUID();
      const responses = await Promise.all(
        Array.from({ length: 12 }, () => service().post('/test/slow-create', { name: `Race ${key}` }, { token: m.token, headers: { 'idempotency-key': key } })),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(12).fill(201));
      expect(new Set(responses.map((r) => r.text)).size).toBe(1);
      expect(await countMerchants(`Race ${key}`)).toBe(1);
    });

    it('scopes keys per merchant', async () => {
      const a = await service().merchant();
      const b = await service().merchant();
      const key = randomUUID();
      const first = await service().post('/test/slow-create', { name: `Scoped A ${key}` }, { token: a.token, headers: { 'idempotency-key': key } });
      const second = await service().post('/test/slow-create', { name: `Scoped B ${key}` }, { token: b.token, headers: { 'idempotency-key': key } });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBeNull();
    });

    it('forgets a key after 24 hours', async () => {
      const key = randomUUID();
      const name = `Expiry ${key}`;
      await service().post('/admin/merchants', { name }, { headers: { ...admin(), 'idempotency-key': key } });
      const row = await service().ctx.db.selectFrom('idempotency_keys').select(['created_at', 'expires_at']).where('key', '=', key).executeTakeFirstOrThrow();
      expect(row.expires_at.getTime() - row.created_at.getTime()).toBeGreaterThan(24 * 3600_000 - 60_000);
      await service().ctx.db.updateTable('idempotency_keys').set({ expires_at: new Date(Date.now() - 1000) }).where('key', '=', key).execute();
      const again = await service().post('/admin/merchants', { name }, { headers: { ...admin(), 'idempotency-key': key } });
      expect(again.headers.get('idempotent-replayed')).toBeNull();
      expect(await countMerchants(name)).toBe(2);
    });

    it('fingerprints request bodies with a keyed digest, never a plain hash that could be brute-forced', async () => {
      const key = randomUUID();
      const name = `Digest ${key}`;
      await service().post('/admin/merchants', { name }, { headers: { ...admin(), 'idempotency-key': key } });
      const row = await service().ctx.db.selectFrom('idempotency_keys').select('request_hash').where('key', '=', key).executeTakeFirstOrThrow();
      const plain = createHash('sha256').update(`POST\n/admin/merchants\n${JSON.stringify({ name })}`).digest('hex');
      expect(row.request_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.request_hash).not.toBe(plain);
      expect(row.request_hash).toBe(service().ctx.secretBox.keyedDigest('idempotency', `POST\n/admin/merchants\n${JSON.stringify({ name })}`));
    });

    it('refuses a malformed key', async () => {
      const response = await service().post('/admin/merchants', { name: 'x' }, { headers: { ...admin(), 'idempotency-key': 'a'.repeat(256) } });
      expect(response.status).toBe(400);
      expect(response.body.errors[0].code).toBe('00.06.0003');
    });

    it('releases the key after a server fault so a retry can succeed', async () => {
      const m = await service().merchant();
      const key = randomUUID();
      const failed = await service().post('/test/fail-once', { name: key }, { token: m.token, headers: { 'idempotency-key': key } });
      expect(failed.status).toBe(500);
      const retried = await service().post('/test/fail-once', { name: key }, { token: m.token, headers: { 'idempotency-key': key } });
      expect(retried.status).toBe(201);
    });

  },
  {
    routes: (app, ctx) => {
      const failedOnce = new Set<string>();
      app.post('/test/slow-create', { schema: { body: Type.Object({ name: Type.String() }) } }, async (request, reply) => {
        principalOf(request);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const row = await ctx.db.insertInto('merchants').values({ name: request.body.name, contract_id: randomUUID(), payout_contract_id: randomUUID(), webhook_secret: 'x' }).returning('id').executeTakeFirstOrThrow();
        return reply.code(201).send({ id: row.id });
      });
      app.post('/test/fail-once', { schema: { body: Type.Object({ name: Type.String() }) } }, async (request, reply) => {
        if (!failedOnce.has(request.body.name)) {
          failedOnce.add(request.body.name);
          throw new Error('simulated fault');
        }
        return reply.code(201).send({ ok: true });
      });
    },
  },
);

/**
 * A fault only a PostgreSQL server can cause: the backend keeping a key's answer is terminated
 * (`pg_terminate_backend`), as when the primary goes away between the effect and its answer.
 */
(process.env.TEST_DATABASE_URL ? describe : describe.skip)(
  process.env.TEST_DATABASE_URL ? 'Idempotency-Key through a lost connection [postgres]' : 'Idempotency-Key through a lost connection: skipped, needs PostgreSQL (TEST_DATABASE_URL)',
  () => {
    let service: TestService;
    beforeAll(async () => {
      service = await startTestService('postgres');
    });
    afterAll(async () => {
      await service?.close();
    });
    const countMerchants = async (name: string) => (await service.ctx.db.selectFrom('merchants').select('id').where('name', '=', name).execute()).length;

    it('keeps the answer when the database drops the connection that was keeping it, and replays that answer', async () => {
      const db = service.ctx.db;
      // The first time a `keep-fault-` key's answer is written, the backend writing it is terminated: the
      // connection is lost between the effect and the answer, as when the primary goes away.
      await sql`create sequence if not exists keep_faults`.execute(db);
      await sql`create or replace function terminate_first_keep() returns trigger language plpgsql as $$
        begin
          if new.state = 'COMPLETED' and new.key like 'keep-fault-%' and nextval('keep_faults') = 1 then
            perform pg_terminate_backend(pg_backend_pid());
          end if;
          return new;
        end $$`.execute(db);
      await sql`create trigger terminate_first_keep before update on idempotency_keys for each row execute function terminate_first_keep()`.execute(db);
      try {
        const key = `keep-fault-${randomUUID()}`;
        const name = `Kept ${key}`;
        const first = await service.post('/admin/merchants', { name }, { headers: { authorization: `Bearer ${service.ctx.adminToken}`, 'idempotency-key': key } });
        expect(first.status).toBe(201);
        const faults = await sql<{ n: string }>`select last_value::text as n from keep_faults`.execute(db);
        expect(faults.rows[0]!.n, 'the backend keeping the answer was terminated once').toBe('2');
        const second = await service.post('/admin/merchants', { name }, { headers: { authorization: `Bearer ${service.ctx.adminToken}`, 'idempotency-key': key } });
        expect(second.headers.get('idempotent-replayed')).toBe('true');
        expect(second.text).toBe(first.text);
        expect(await countMerchants(name)).toBe(1);
      } finally {
        await sql`drop trigger terminate_first_keep on idempotency_keys`.execute(db);
      }
    });
  },
);
