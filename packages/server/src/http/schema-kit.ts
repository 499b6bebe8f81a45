import { Type, type TSchemaOptions, type TSchema } from 'typebox';
import type { ErrorKey } from './errors';

/**
 * Small TypeBox helpers shared by every route schema, so a rule such as "a decimal amount with at most
 * two places" is written once and reported with the same catalogue code everywhere.
 */

/** A string enum as JSON Schema `enum` (clearer errors and OpenAPI than a union of literals). */
export function StringEnum<const T extends readonly string[]>(values: T, options: TSchemaOptions = {}) {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/**
 * A status enum in an answer: the document lists the values for clients and code generators, while
 * the TypeScript type stays `string`, because the rows the handlers return carry statuses as text.
 */
export function StatusEnum(values: readonly string[], options: TSchemaOptions = {}) {
  return Type.Unsafe<string>({ ...options, type: 'string', enum: [...values] });
}

/** Attaches the catalogue entry and wording reported when this schema's own rule fails. */
export function withError<T extends TSchema>(schema: T, key: ErrorKey, message: string): T {
  return { ...schema, 'x-error': { key, message } };
}

/** The spec's standard error body, for OpenAPI responses. */
export const ErrorBody = Type.Object(
  {
    timestamp: Type.String({ examples: ['2026-11-22T10:15:30.123+0000'] }),
    status: Type.Integer(),
    error: Type.String(),
    message: Type.Optional(Type.String()),
    path: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ code: Type.String(), description: Type.String() }))),
    refresh_token: Type.Optional(Type.String()),
  },
  { title: 'Standard error body' },
);

/**
 * Error responses for OpenAPI, by status. They are described, not typed: a typed response schema
 * would make Fastify serialise error bodies through it and drop fields (the report endpoints' 401
 * body has a different shape), so the standard body is spelled out in the description instead.
 */
export function errorResponses(...statuses: number[]): Record<number, ReturnType<typeof Type.Unsafe>> {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      Type.Unsafe<unknown>({
        description: `Standard error body {timestamp, status, error, message, path, errors: [{code, description}], refresh_token} (docs/errors.md)`,
      }),
    ]),
  );
}

export const AuthHeaders = Type.Object({ 'x-auth-token': Type.Optional(Type.String({ description: 'Access token from POST /auth' })) });
