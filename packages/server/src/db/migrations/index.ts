import type { Migration } from 'kysely';
import * as foundation from './0001-foundation';

/**
 * Every migration, in order. Listed statically (not read from the file system) so the same set runs
 * from source, from tests and from a bundle. Names sort in application order.
 */
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
};
