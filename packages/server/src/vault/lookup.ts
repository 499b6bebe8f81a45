import type { Selectable } from 'kysely';
import type { Db } from '../db/database';
import type { CardsTable, PersonsTable } from '../db/schema';
import type { CardScheme, ProcessorCard } from '../processor/processor';
import type { SecretBox } from '../lib/secret-box';
import { isUuid } from '../lib/identifiers';

export type PersonRow = Selectable<PersonsTable>;
export type CardRow = Selectable<CardsTable>;

/** A merchant's person by its public id; another merchant's person is not found. @example await findPerson(db, merchantId, id) */
export async function findPerson(db: Db, merchantId: string, personId: string): Promise<PersonRow | undefined> {
  if (!isUuid(personId)) return undefined;
  return db.selectFrom('persons').selectAll().where('id', '=', personId).where('merchant_id', '=', merchantId).executeTakeFirst();
}

/** A merchant's card by its public id; another merchant's card is not found. @example await findCard(db, merchantId, id) */
export async function findCard(db: Db, merchantId: string, cardId: string): Promise<CardRow | undefined> {
  if (!isUuid(cardId)) return undefined;
  return db.selectFrom('cards').selectAll().where('id', '=', cardId).where('merchant_id', '=', merchantId).executeTakeFirst();
}

/** The card as the processor needs it, decrypted only here, for the duration of a processor call. @example processorCard(cipher, card) */
export function processorCard(cipher: SecretBox, card: Pick<CardRow, 'key_id' | 'number_ciphertext' | 'exp_month' | 'exp_year' | 'holder_name' | 'scheme'>): ProcessorCard {
  return {
    number: cipher.decrypt(card.key_id, card.number_ciphertext),
    expMonth: card.exp_month,
    expYear: card.exp_year,
    holderName: card.holder_name,
    scheme: card.scheme as CardScheme,
  };
}
