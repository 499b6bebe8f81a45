import { Type, type Static } from 'typebox';
import type { Selectable } from 'kysely';
import type { UsersTable } from '../db/schema';

/** The spec's User resource, returned by `POST /auth` and `POST /admin/merchants`. */
export const UserResourceSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    username: Type.String(),
    name: Type.String(),
    enable: Type.Boolean(),
    open: Type.Boolean({ description: 'Whether the account is open for business (true for every active merchant)' }),
    roles: Type.Array(Type.String(), { examples: [['MERCHANT_ADMIN']] }),
    merchant_id: Type.String({ format: 'uuid' }),
  },
  { title: 'User' },
);
export type UserResource = Static<typeof UserResourceSchema>;

/** @example toUserResource(row) // { id, username, name, enable: true, open: true, roles, merchant_id } */
export function toUserResource(row: Selectable<UsersTable>): UserResource {
  return {
    id: row.id,
    username: row.username,
    name: row.name,
    enable: row.enabled,
    open: row.enabled,
    roles: row.roles,
    merchant_id: row.merchant_id,
  };
}
