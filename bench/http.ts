/**
 * HTTP benchmark: Colibri's `POST /auth` and an authenticated no-op `GET /me` against a bare Fastify
 * hello-world measured in the same run with the same load settings, on PGlite and (with
 * BENCH_DATABASE_URL or TEST_DATABASE_URL) on PostgreSQL. Targets: POST /auth ≥ 0.3×, GET ≥ 0.5×.
 *
 *   npm run bench:http            # BENCH_CONNECTIONS=10 BENCH_SECONDS=10 by default
 */
import { createBenchDatabase, drive, printTable, startColibri, startHelloWorld, type Figure } from './lib';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

const hello = await startHelloWorld(18_100);
const baselineGet = await drive({ name: 'hello-world GET', url: `${hello.url}/` }, connections, seconds);
const baselinePost = await drive({ name: 'hello-world POST', url: `${hello.url}/`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' }, connections, seconds);
await hello.stop();

console.log(`\nconnections=${connections} duration=${seconds}s node=${process.version}\n`);
for (const engine of pgUrl ? ['pglite', 'postgres'] : ['pglite']) {
  const database = engine === 'postgres' && pgUrl ? await createBenchDatabase(pgUrl) : undefined;
  const service = await startColibri(18_101, database ? { DATABASE_URL: database.url } : {});
  try {
    const created = await (
      await fetch(`${service.url}/admin/merchants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${service.adminToken}` },
        body: JSON.stringify({ name: 'Bench' }),
      })
    ).json() as { api_key: string; api_secret: string };
    const credentials = JSON.stringify({ apiKey: created.api_key, apiSecret: created.api_secret });
    const { token } = await (await fetch(`${service.url}/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: credentials })).json() as { token: string };

    const auth = await drive({ name: `${engine}: POST /auth`, url: `${service.url}/auth`, method: 'POST', headers: { 'content-type': 'application/json' }, body: credentials }, connections, seconds);
    const me = await drive({ name: `${engine}: GET /me (authenticated)`, url: `${service.url}/me`, headers: { 'x-auth-token': token } }, connections, seconds);
    console.log(`### ${engine}\n`);
    const rows: (Figure & { ratio?: number })[] = [
      baselinePost,
      { ...auth, ratio: auth.requestsPerSecond / baselinePost.requestsPerSecond },
      baselineGet,
      { ...me, ratio: me.requestsPerSecond / baselineGet.requestsPerSecond },
    ];
    printTable(rows);
    console.log('');
  } finally {
    await service.stop();
    await database?.drop();
  }
}
