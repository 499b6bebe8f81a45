import pg from 'pg';

/**
 * Statements on TEST_DATABASE_URL's server outside any test database (creating and dropping them,
 * terminating backends), each on a connection of its own. Light on purpose: test/global-setup.ts runs
 * in vitest's main process and imports it without the service.
 * @example await adminQuery(`create database ${name}`);
 */
export async function adminQuery<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<R[]> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return (await admin.query<R>(text, values)).rows;
  } finally {
    await admin.end();
  }
}

/** The URL of database `name` on TEST_DATABASE_URL's server. */
export function testDatabaseUrl(name: string): string {
  const url = new URL(process.env.TEST_DATABASE_URL ?? '');
  url.pathname = `/${name}`;
  return url.toString();
}
