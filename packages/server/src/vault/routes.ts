import { principalOf, type App, type AppContext } from '../context';
import { refreshToken } from '../auth/refresh-token';
import { errorResponses } from '../http/schema-kit';
import { createCard } from './create-card';
import { createPerson } from './create-person';
import { CreateCardBody, CreateCardResponse, CreatePersonBody, CreatePersonResponse } from './schemas';

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
          'Checks the number (Luhn, scheme), the expiry (merchant clock) and the CVV, verifies the card with the processor, and stores it encrypted. The CVV is never stored.',
        tags: ['Persons and cards'],
        body: CreateCardBody,
        response: { 200: CreateCardResponse, ...errorResponses(400, 401, 404, 502) },
      },
    },
    async (request) => {
      const card = await createCard(ctx, principalOf(request).merchantId, request.body);
      return {
        public_card_id: card.cardId,
        public_card_status: 'ACTIVE' as const,
        card_scheme: card.scheme,
        masked_number: card.maskedNumber,
        refresh_token: await refreshToken(ctx, request),
      };
    },
  );
}
