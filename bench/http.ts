/**
 * HTTP benchmark: Colibri's `POST /auth` and an authenticated no-op `GET /me` against a bare Fastify
 * hello-world measured in the same run with the same load settings, on PGlite and (with
 * BENCH_DATABASE_URL or TEST_DATABASE_URL) on PostgreSQL. Targets: POST /auth ≥ 0.3×, GET ≥ 0.5×.
 *
 *   npm run bench:http            # BENCH_CONNECTIONS=10 BENCH_SECONDS=5 BENCH_ROUNDS=3 by default
 *
 * Each round drives the baseline and then Colibri back to back (POST, then GET), so both meet the same
 * machine load; the table gives the median over the rounds of requests/s, p99 and the ratio of each
 * round. The hello-world keeps running beside Colibri, idle while Colibri is measured.
 */
import { createBenchDatabase, drive, median, printTable, startColibri, startHelloWorld, type Figure, type Load } from './lib';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

/** Medians over the rounds of a baseline and a load measured back to back. */
async function paired(baseline: Load, load: Load): Promise<[Figure, Figure & { ratio: number }]> {
  const base: Figure[] = [];
  const measured: Figure[] = [];
  for (let round = 0; round < rounds; round++) {
    base.push(await drive(baseline, connections, seconds));
    measured.push(await drive(load, connections, seconds));
  }
  const summary = (figures: Figure[], name: string): Figure => ({
    name,
    requestsPerSecond: median(figures.map((f) => f.requestsPerSecond)),
    p99Ms: median(figures.map((f) => f.p99Ms)),
    non2xx: figures.reduce((sum, f) => sum + f.non2xx, 0),
  });
  const ratio = median(measured.map((f, i) => f.requestsPerSecond / (base[i]?.requestsPerSecond ?? Number.NaN)));
  return [summary(base, baseline.name), { ...summary(measured, load.name), ratio }];
}

const hello = await startHelloWorld(18_100);
console.log(`\nconnections=${connections} duration=${seconds}s rounds=${rounds} node=${process.version}\n`);
try {
  for (const engine of pgUrl ? ['pglite', 'postgres'] : ['pglite']) {
    const database = engine === 'postgres' && pgUrl ? await createBenchDatabase(pgUrl) : undefined;
    const service = await startColibri(18_101, database ? { DATABASE_URL: database.url } : {});
    try {
      const created = (await (
        await fetch(`${service.url}/admin/merchants`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${service.adminToken}` },
          body: JSON.stringify({ name: 'Bench' }),
        })
      ).json()) as { api_key: string; api_secret: string };
      const credentials = JSON.stringify({ apiKey: created.api_key, apiSecret: created.api_secret });
      const json = { 'content-type': 'application/json' };
      const { token } = (await (await fetch(`${service.url}/auth`, { method: 'POST', headers: json, body: credentials })).json()) as { token: string };

      const post = await paired(
        { name: 'hello-world POST', url: `${hello.url}/`, method: 'POST', headers: json, body: '{"a":1}' },
        { name: `${engine}: POST /auth`, url: `${service.url}/auth`, method: 'POST', headers: json, body: credentials },
      );
      const get = await paired(
        { name: 'hello-world GET', url: `${hello.url}/` },
        { name: `${engine}: GET /me (authenticated)`, url: `${service.url}/me`, headers: { 'x-auth-token': token } },
      );
      console.log(`### ${engine}\n`);
      printTable([...post, ...get]);
      console.log('');
    } finally {
      await service.stop();
      await database?.drop();
    }
  }
} finally {
  await hello.stop();
}
