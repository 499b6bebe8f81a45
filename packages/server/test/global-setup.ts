import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/database';
import { migrateToLatest } from '../src/db/migrate';
import { PreparingPGliteDialect } from '../src/db/pglite-dialect';
import type { Database } from '../src/db/schema';
import { adminQuery, testDatabaseUrl } from './postgres-admin';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated PGlite data directory, dumped: every in-memory test database starts from it. */
    pgliteTemplate: string;
    /** A migrated PostgreSQL database every test database is created from (with TEST_DATABASE_URL). */
    postgresTemplate: string | undefined;
  }
}

/**
 * Before any test file runs:
 * - bring the built service (dist/, `npm run build`) up to date once. Tests that start `colibri` as a
 *   child process run dist/, which each start rebuilds when the sources changed; with several test files
 *   at once, those builds would otherwise run side by side in every file's first child;
 * - migrate one database per engine, which every test database is copied from (test/harness.ts): a new
 *   PGlite runs initdb and every migration in 3 to 5 s on a CI machine, and loads a dumped one in under
 *   1 s; PostgreSQL copies a template database faster than it migrates an empty one.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cli = fileURLToPath(new URL('../bin/colibri.js', import.meta.url));
  execFileSync(process.execPath, [cli, '--help'], { stdio: ['ignore', 'ignore', 'inherit'] });

  const dir = mkdtempSync(join(tmpdir(), 'colibri-test-template-'));
  const pglite = await PGlite.create();
  const db = new Kysely<Database>({ dialect: new PreparingPGliteDialect(pglite) });
  await migrateToLatest(db);
  const pgliteTemplate = join(dir, 'pglite.tar');
  writeFileSync(pgliteTemplate, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
  await db.destroy();
  project.provide('pgliteTemplate', pgliteTemplate);

  const postgresTemplate = process.env.TEST_DATABASE_URL ? `colibri_test_template_${process.pid}` : undefined;
  if (postgresTemplate) {
    await adminQuery(`drop database if exists ${postgresTemplate}`);
    await adminQuery(`create database ${postgresTemplate}`);
    const handle = await openDatabase({ engine: 'postgres', url: testDatabaseUrl(postgresTemplate), poolSize: 1 });
    try {
      await migrateToLatest(handle.db);
    } finally {
      await handle.close();
    }
  }
  project.provide('postgresTemplate', postgresTemplate);

  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (postgresTemplate) await adminQuery(`drop database if exists ${postgresTemplate} with (force)`);
  };
}
