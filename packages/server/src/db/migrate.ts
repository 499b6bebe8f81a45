import { Migrator, type MigrationResultSet } from 'kysely';
import type { Db } from './database';
import { migrations } from './migrations/index';

export class MigrationError extends Error {}

/**
 * Applies every pending migration. Kysely's migrator takes a lock table, so several processes
 * starting at once on one PostgreSQL apply each migration once.
 * @example await migrateToLatest(db);
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  // Domains add migrations in parallel; each creates its own tables, so applying them out of name order is safe.
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
