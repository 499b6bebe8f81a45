import { ownEntry } from '../../lib/own-entry';
import { disputeReason } from '../../rails/cards';
import type { DisputeNotice, DisputeReasonCategory, DisputeStage } from '../dispute-notices';

/**
 * Adyen's dispute vocabulary translated into Colibri's. These tables are the whole of the translation;
 * docs/disputes.md ("Adyen") prints them, and test/adyen-disputes.test.ts translates every event and
 * sends the notifications through the connector to the fake.
 */

/**
 * What each dispute `eventCode` of Adyen's standard notifications says, as a Colibri notice
 * (connectors/dispute-notices.ts). Adyen gives every event of one dispute the same pspReference; the
 * stage is the event's own, since Adyen sends no stage field (and no `disputeStatus` for payments
 * processed in Brazil). Money follows the stage (disputes/states.ts holdsMoney): a notification of
 * chargeback already holds, because the chargeback is initiated then and its defence period starts
 * (a defence sent on it counts for the chargeback, whose debit follows "a few days" later); a request
 * for information moves no money. Events not listed (NOTIFICATION_OF_FRAUD, which is no dispute,
 * ISSUER_COMMENTS, PREARBITRATION_OPEN, the SCHEME_ARBITRATION_* family) are kept as delivered and
 * not applied.
 */
export const ADYEN_DISPUTE_EVENTS: Readonly<Record<string, { kind: DisputeNotice['kind']; stage: DisputeStage }>> = {
  REQUEST_FOR_INFORMATION: { kind: 'OPENED', stage: 'INQUIRY' },
  NOTIFICATION_OF_CHARGEBACK: { kind: 'OPENED', stage: 'CHARGEBACK' },
  CHARGEBACK: { kind: 'OPENED', stage: 'CHARGEBACK' },
  SECOND_CHARGEBACK: { kind: 'OPENED', stage: 'SECOND_CHARGEBACK' },
  CHARGEBACK_REVERSED: { kind: 'WON', stage: 'CHARGEBACK' },
  ISSUER_RESPONSE_TIMEFRAME_EXPIRED: { kind: 'WON', stage: 'CHARGEBACK' },
  PREARBITRATION_WON: { kind: 'WON', stage: 'PRE_ARBITRATION' },
  PREARBITRATION_LOST: { kind: 'LOST', stage: 'PRE_ARBITRATION' },
  INFORMATION_SUPPLIED: { kind: 'DEFENDED', stage: 'CHARGEBACK' },
  DISPUTE_DEFENSE_PERIOD_ENDED: { kind: 'DEFENSE_PERIOD_ENDED', stage: 'CHARGEBACK' },
};

/**
 * What a dispute `eventCode` says, or undefined for one not listed (a code such as `constructor`, which
 * every object inherits, included).
 * @example adyenDisputeEvent('CHARGEBACK') // { kind: 'OPENED', stage: 'CHARGEBACK' }
 */
export function adyenDisputeEvent(eventCode: string): { kind: DisputeNotice['kind']; stage: DisputeStage } | undefined {
  return ownEntry(ADYEN_DISPUTE_EVENTS, eventCode);
}

/** The additionalData keys that carry the network's reason code, in the order they are read. */
const REASON_CODE_KEYS = ['chargebackReasonCode', 'rfiReasonCode', 'nofReasonCode'] as const;

/** The fields of a notification item that a dispute notice is made from (Adyen's names). */
export interface AdyenDisputeItem {
  readonly eventCode: string;
  readonly success: string;
  readonly pspReference: string;
  readonly eventDate?: string | undefined;
  readonly amount: { readonly value?: number | undefined; readonly currency?: string | undefined };
  readonly reason?: string | undefined;
  readonly additionalData?: Readonly<Record<string, string | undefined>> | undefined;
}

function dateOf(raw: string | undefined): Date | null {
  if (!raw) return null;
  const at = new Date(raw);
  return Number.isNaN(at.getTime()) ? null : at;
}

/**
 * The network's reason code and text of an item. The code comes from additionalData (trimmed: Adyen
 * sends `" 4853"`), else from a `reason` written `code:text` (`"502:Cardmember Dispute"`).
 * @example reasonOf({ reason: '502:Cardmember Dispute' }) // { code: '502', description: 'Cardmember Dispute' }
 */
export function reasonOf(item: Pick<AdyenDisputeItem, 'reason' | 'additionalData'>): { code: string; description: string | null } {
  const reason = (item.reason ?? '').trim();
  const coded = /^([0-9A-Z][0-9A-Z.]{0,11}):(.*)$/.exec(reason);
  const fromData = REASON_CODE_KEYS.map((key) => item.additionalData?.[key]?.trim()).find((code) => code);
  const code = fromData ?? coded?.[1] ?? '';
  const description = (coded ? coded[2]! : reason).trim();
  return { code, description: description || null };
}

/**
 * The notices a dispute notification item gives for a payment of Colibri's: none for an event that is
 * not a dispute's (or not listed) or for `success` "false" (Adyen reports dispute facts as successes);
 * one otherwise; and a second, DEFENDED, one instant later, when Adyen says it defended the dispute
 * itself (`autoDefended`), so the merchant is not asked for a defence Adyen already made.
 * @example translateDisputeNotification(item, { merchantId, paymentToken }) // [{ kind: 'OPENED', stage: 'CHARGEBACK', … }]
 */
export function translateDisputeNotification(item: AdyenDisputeItem, payment: { merchantId: string; paymentToken: string }): DisputeNotice[] {
  const event = adyenDisputeEvent(item.eventCode);
  if (!event || item.success !== 'true') return [];
  const reason = reasonOf(item);
  const occurredAt = dateOf(item.eventDate) ?? new Date();
  const notice: DisputeNotice = {
    processor: 'adyen',
    merchantId: payment.merchantId,
    noticeKey: `${item.pspReference}:${item.eventCode}:${item.success}`,
    processorReference: item.pspReference,
    paymentToken: payment.paymentToken,
    kind: event.kind,
    stage: event.stage,
    amountMinor: BigInt(item.amount.value ?? 0),
    currency: item.amount.currency ?? '',
    reasonCode: reason.code,
    reasonCategory: disputeReason(reason.code).category,
    reasonDescription: reason.description,
    evidenceDueBy: dateOf(item.additionalData?.defensePeriodEndsAt),
    occurredAt,
  };
  if (event.kind !== 'OPENED' || item.additionalData?.autoDefended !== 'true') return [notice];
  return [notice, { ...notice, noticeKey: `${notice.noticeKey}:autoDefended`, kind: 'DEFENDED', occurredAt: new Date(occurredAt.getTime() + 1) }];
}

/**
 * The Disputes API's defence reasons Colibri prefers for each reason category, best first. The reasons
 * Adyen offers for a dispute (retrieveApplicableDefenseReasons) depend on the scheme and reason code;
 * Colibri picks among them by the rule in pickDefence.
 */
export const ADYEN_DEFENCE_REASONS: Readonly<Record<DisputeReasonCategory, readonly string[]>> = {
  FRAUD: ['CompellingEvidence', 'AdditionalInformation', 'ShippedToAVS', 'SupplyDefenseMaterial'],
  NOT_RECEIVED: ['MerchandiseReceived', 'ServicesProvided', 'GoodsOrServicesProvided', 'SupplyDefenseMaterial'],
  NOT_AS_DESCRIBED: ['GoodsWereAsDescribed', 'GoodsRepairedOrReplaced', 'SupplyDefenseMaterial'],
  DUPLICATE: ['InvalidChargeback', 'SupplyDefenseMaterial'],
  CREDIT_NOT_PROCESSED: ['CreditOrCancellationPolicyProperlyDisclosed', 'PurchaseProperlyPosted', 'CancellationOrReturns', 'SupplyDefenseMaterial'],
  GENERAL: ['SupplyDefenseMaterial', 'AdditionalInformation'],
};

/** What the merchant's text evidence is sent as: one PDF, this document's "kind" in the table below. */
export const STATEMENT_KIND = 'statement';

/**
 * The Disputes API's document types each of Colibri's evidence file kinds can stand for, best first
 * (`statement` is the text evidence rendered as a PDF). `DefenseMaterial` is Adyen's generic type.
 */
export const ADYEN_DOCUMENT_TYPES: Readonly<Record<string, readonly string[]>> = {
  receipt: ['TIDorInvoice', 'ProofOfGoodsOrServicesProvided', 'CompellingEvidence', 'AdditionalInformation', 'DefenseMaterial'],
  customer_communication: ['AdditionalInformation', 'CompellingEvidence', 'WrittenRebuttal', 'DefenseMaterial'],
  shipping_documentation: ['ProofOfGoodsOrServicesProvided', 'DateMerchandiseShipped', 'ShippedToAVS', 'DefenseMaterial'],
  refund_policy: ['DisclosureAtPointOfInteraction', 'CancellationNeverAccepted', 'DefenseMaterial'],
  product_description: ['GoodsWereAsDescribed', 'DefenseMaterial'],
  uncategorized: ['DefenseMaterial', 'AdditionalInformation'],
  [STATEMENT_KIND]: ['WrittenRebuttal', 'AdditionalInformation', 'DefenseMaterial'],
};

/** A defence reason as the Disputes API offers it. */
export interface OfferedReason {
  readonly defenseReasonCode: string;
  readonly defenseDocumentTypes?: readonly { readonly defenseDocumentTypeCode: string; readonly requirementLevel: string }[] | undefined;
}

/** The reason to defend with and the document type of each document (by its position in `kinds`). */
export interface DefencePlan {
  readonly defenseReasonCode: string;
  readonly documentTypes: readonly (string | null)[];
}

/** Places each document on a type the reason lists (an unused type first); null where none fits. */
function place(reason: OfferedReason, kinds: readonly string[]): (string | null)[] {
  const offered = new Set((reason.defenseDocumentTypes ?? []).map((t) => t.defenseDocumentTypeCode));
  const used = new Set<string>();
  return kinds.map((kind) => {
    const fits = (ADYEN_DOCUMENT_TYPES[kind] ?? ADYEN_DOCUMENT_TYPES.uncategorized!).filter((type) => offered.has(type));
    const type = fits.find((t) => !used.has(t)) ?? fits[0] ?? null;
    if (type) used.add(type);
    return type;
  });
}

/** Whether documents of these types meet the reason's requirements (see pickDefence). */
function meets(reason: OfferedReason, types: readonly (string | null)[]): boolean {
  const given = new Set(types.filter((t): t is string => t !== null));
  const documentTypes = reason.defenseDocumentTypes ?? [];
  const required = documentTypes.filter((t) => t.requirementLevel === 'Required' || t.requirementLevel === 'AlternativeRequired');
  const oneOrMore = documentTypes.filter((t) => t.requirementLevel === 'OneOrMore');
  if (!required.every((t) => given.has(t.defenseDocumentTypeCode))) return false;
  if (oneOrMore.length > 0 && !oneOrMore.some((t) => given.has(t.defenseDocumentTypeCode))) return false;
  return given.size > 0;
}

/**
 * Chooses the defence among the reasons Adyen offers, for documents of these kinds:
 * 1. candidates are the category's preferred reasons (ADYEN_DEFENCE_REASONS) that Adyen offers, in that
 *    order, then the other offered reasons in Adyen's order;
 * 2. each document is placed on the first type of its kind's row (ADYEN_DOCUMENT_TYPES) that the reason
 *    lists, a type no other document took first;
 * 3. a reason is met when every Required (and AlternativeRequired) type has a document, at least one of
 *    its OneOrMore types has one if it has any, and at least one document is placed;
 * 4. the first met reason that places every document wins; else the first met reason (a document it
 *    has no type for is not sent); else null: no offered reason can be met with this evidence.
 * @example pickDefence(offered, 'FRAUD', ['receipt', 'statement']) // { defenseReasonCode: 'AdditionalInformation', documentTypes: ['AdditionalInformation', 'DefenseMaterial'] }
 */
export function pickDefence(offered: readonly OfferedReason[], category: DisputeReasonCategory, kinds: readonly string[]): DefencePlan | null {
  const preferred = ADYEN_DEFENCE_REASONS[category].map((code) => offered.find((r) => r.defenseReasonCode === code)).filter((r): r is OfferedReason => r !== undefined);
  const candidates = [...preferred, ...offered.filter((r) => !preferred.includes(r))];
  const plans = candidates.map((reason) => ({ reason, types: place(reason, kinds) })).filter(({ reason, types }) => meets(reason, types));
  const chosen = plans.find(({ types }) => types.every((t) => t !== null)) ?? plans[0];
  return chosen ? { defenseReasonCode: chosen.reason.defenseReasonCode, documentTypes: chosen.types } : null;
}
