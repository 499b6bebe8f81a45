import { sql, type Kysely } from 'kysely';

/**
 * Every terminal 3DS status reached by a move stamps its own time (three-ds/states.ts): CHALLENGE_FAILED
 * gets `challenge_failed_at`. Authentications that failed their challenge before this column existed
 * take their `updated_at`, which is the time of the answer that failed them: nothing moves `updated_at`
 * after that answer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table three_ds_authentications add column challenge_failed_at timestamptz`.execute(db);
  await sql`update three_ds_authentications set challenge_failed_at = updated_at where status = 'CHALLENGE_FAILED'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table three_ds_authentications drop column challenge_failed_at`.execute(db);
}
