import { Type } from 'typebox';
import { principalOf, type App, type AppContext } from '../context';
import { ApiError } from '../http/errors';
import { refreshToken } from '../auth/refresh-token';
import { errorResponses } from '../http/schema-kit';
import { resolveCardInput, cardEncryptionKey } from './card-encryption';
import { createCard } from './create-card';
import { createPerson, personFieldChecks } from './create-person';
import { CardEncryptionKeyResponse, CreateCardBody, CreateCardResponse, CreatePersonBody, CreatePersonResponse } from './schemas';

/**
 * The person and card identifiers of the checkout flow (contract, "Person and card identifiers"):
 * `POST /checkout/person` and `POST /checkout/card`. The handlers only hand the validated body to
 * their verb and shape the answer; docs/cards-and-persons.md describes every rule.
 * @example registerVaultRoutes(app, ctx);
 */
export function registerVaultRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/checkout/person',
    {
      // A malformed e-mail and a wrong CPF are told together, not one request after the other.
      config: { fieldChecks: personFieldChecks },
      schema: {
        summary: 'Create a person',
        description: 'Registers a customer (CPF or CNPJ, check digits verified) and returns its public_person_id for cards and payments.',
        tags: ['Persons and cards'],
        body: CreatePersonBody,
        response: { 200: CreatePersonResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { personId } = await createPerson(ctx.db, principalOf(request).merchantId, request.body);
      return { public_person_id: personId, refresh_token: await refreshToken(ctx, request) };
    },
  );

  app.post(
    '/checkout/card',
    {
      schema: {
        summary: 'Store a card of a person',
        description:
          "Checks the number (Luhn, scheme), the expiry (merchant clock) and the CVV, verifies the card with the processor, and stores it encrypted. The CVV is never stored. Instead of number and cvv, takes encrypted_card: the card encrypted in the shopper's browser by Colibri.encryptCard, so the merchant's server never handles them.",
        tags: ['Persons and cards'],
        body: CreateCardBody,
        response: { 200: CreateCardResponse, ...errorResponses(400, 401, 404, 502) },
      },
    },
    async (request) => {
      const merchantId = principalOf(request).merchantId;
      const card = await createCard(ctx, merchantId, await resolveCardInput(ctx, merchantId, request.body));
      return {
        public_card_id: card.cardId,
        public_card_status: 'ACTIVE' as const,
        card_scheme: card.scheme,
        masked_number: card.maskedNumber,
        refresh_token: await refreshToken(ctx, request),
      };
    },
  );

  app.get(
    '/checkout/card-encryption-key/:contractId',
    {
      config: { auth: 'public' },
      schema: {
        summary: "A merchant's public key for browser-side card encryption",
        description:
          'Public, like the contract id: the browser library (Colibri.encryptCard) fetches it to encrypt card data in the shopper\'s browser. An RSA-OAEP-256 JWK; cards are encrypted as compact JWEs with A256GCM.',
        tags: ['Persons and cards'],
        security: [],
        params: Type.Object({ contractId: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: CardEncryptionKeyResponse, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const merchant = await ctx.db.selectFrom('merchants').select('id').where('contract_id', '=', request.params.contractId).executeTakeFirst();
      if (!merchant) throw new ApiError('NOT_FOUND', 'contractId: is not the contract id of any merchant.');
      // Any merchant page may read it (it is public) and cache it briefly; a rotation then reaches browsers within minutes.
      reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=300');
      return cardEncryptionKey(ctx, merchant.id);
    },
  );
}
