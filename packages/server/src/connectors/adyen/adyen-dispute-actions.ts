import type { DisputesApi } from '@adyen/api-library/lib/src/services/disputes/disputesApi.js';
import type { DefenseReason } from '@adyen/api-library/lib/src/typings/disputes/models.js';
import { imagePdf, textPdf } from '../../lib/pdf';
import { PngError, pngToPdfImage } from '../../lib/png';
import { DisputeRefusedError, type DisputeActions, type DisputeDefence } from '../dispute-notices';
import { pickDefence, STATEMENT_KIND } from './adyen-disputes';
import { AdyenRequestRefused } from './adyen-transport';

/** Adyen takes defence documents as PDF (at most 2 MB) or JPEG (at most 10 MB); docs.adyen.com, "Defense requirements". */
export const ADYEN_PDF_MAX_BYTES = 2 * 1024 * 1024;
export const ADYEN_JPEG_MAX_BYTES = 10 * 1024 * 1024;

/** Headings of the text evidence fields in the statement document. */
const FIELD_HEADINGS: Readonly<Record<string, string>> = {
  product_description: 'Product or service description',
  customer_communication: 'Communication with the customer',
  shipping_carrier: 'Shipping carrier',
  shipping_tracking_number: 'Shipping tracking number',
  refund_policy: 'Refund and cancellation policy',
  uncategorized_text: 'Other information',
};

/** One document for Adyen: what it shows (an evidence file kind, or the statement) and its bytes. */
interface Document {
  readonly kind: string;
  readonly contentType: 'application/pdf' | 'image/jpeg';
  readonly content: Buffer;
}

/**
 * Adyen's dispute id: a later round of a dispute that closed is kept in Colibri as `<psp>#<STAGE>`
 * (disputes/apply-notices.ts), while Adyen names every round by the dispute's pspReference.
 * @example adyenDisputeReference('QFQTPCQ8HXSKGK82#SECOND_CHARGEBACK') // 'QFQTPCQ8HXSKGK82'
 */
export function adyenDisputeReference(processorReference: string): string {
  return processorReference.split('#')[0]!;
}

/**
 * Defends and accepts disputes through Adyen's Disputes API (v30) with the library's DisputesApi, over
 * the connector's transport and credentials. A defence is:
 * 1. its documents, made before anything is sent, so evidence Adyen cannot take refuses the defence
 *    without a half-supplied one: PDF and JPEG files as they are, a PNG drawn on a PDF page (Adyen takes
 *    no PNG), the text evidence written into one PDF statement; a PDF over 2 MB is refused;
 * 2. retrieveApplicableDefenseReasons, and the defence reason and document types chosen from what
 *    Adyen offers (adyen-disputes.ts pickDefence);
 * 3. supplyDefenseDocument for each document, then defendDispute with the reason.
 * Adyen answers a refusal as HTTP 200 with `disputeServiceResult.success` false, or as a 4xx: both are
 * DisputeRefusedError with Adyen's message. A connection that fails or times out passes as the
 * transport's ProcessorUnavailableError or ProcessorTimeoutError.
 */
export class AdyenDisputeActions implements DisputeActions {
  constructor(
    private readonly api: DisputesApi,
    private readonly merchantAccount: string,
  ) {}

  async defend(defence: DisputeDefence): Promise<void> {
    const disputePspReference = adyenDisputeReference(defence.processorReference);
    const merchantAccountCode = this.merchantAccount;
    const documents = await documentsOf(defence);
    if (documents.length === 0) throw new DisputeRefusedError('a defence at Adyen needs at least one document or text field.');
    const offered = await this.ask('retrieveApplicableDefenseReasons', () => this.api.retrieveApplicableDefenseReasons({ disputePspReference, merchantAccountCode }));
    const reasons: DefenseReason[] = offered.defenseReasons ?? [];
    if (reasons.length === 0) throw new DisputeRefusedError('Adyen offers no defence for this dispute.');
    const plan = pickDefence(reasons, defence.reasonCategory, documents.map((d) => d.kind));
    if (!plan) {
      const needs = reasons.map((r) => `${r.defenseReasonCode} (${(r.defenseDocumentTypes ?? []).filter((t) => t.requirementLevel !== 'Optional').map((t) => t.defenseDocumentTypeCode).join(', ') || 'any document'})`);
      throw new DisputeRefusedError(`the evidence meets none of the defences Adyen offers: ${needs.join('; ')}.`);
    }
    for (const [index, document] of documents.entries()) {
      const defenseDocumentTypeCode = plan.documentTypes[index];
      if (!defenseDocumentTypeCode) continue;
      await this.ask('supplyDefenseDocument', () =>
        this.api.supplyDefenseDocument({
          disputePspReference,
          merchantAccountCode,
          defenseDocuments: [{ content: document.content.toString('base64'), contentType: document.contentType, defenseDocumentTypeCode }],
        }),
      );
    }
    await this.ask('defendDispute', () => this.api.defendDispute({ disputePspReference, merchantAccountCode, defenseReasonCode: plan.defenseReasonCode }));
  }

  async accept(input: { readonly merchantId: string; readonly processorReference: string }): Promise<void> {
    await this.ask('acceptDispute', () => this.api.acceptDispute({ disputePspReference: adyenDisputeReference(input.processorReference), merchantAccountCode: this.merchantAccount }));
  }

  /** One call: a 4xx or an answer without success is Adyen's refusal. */
  private async ask<T extends { disputeServiceResult?: { success?: boolean; errorMessage?: string } }>(operation: string, call: () => Promise<T>): Promise<T> {
    let answer: T;
    try {
      answer = await call();
    } catch (error) {
      if (error instanceof AdyenRequestRefused) throw new DisputeRefusedError(`${operation}: ${error.errorCode} ${error.message}`);
      throw error;
    }
    const result = answer.disputeServiceResult;
    if (result?.success !== true) throw new DisputeRefusedError(`${operation}: ${result?.errorMessage ?? 'Adyen did not confirm it'}`);
    return answer;
  }
}

/** The defence's documents for Adyen, in the order they are supplied: its files, then the statement. */
async function documentsOf(defence: DisputeDefence): Promise<Document[]> {
  const documents: Document[] = [];
  for (const file of defence.files) {
    const content = await file.content();
    let document: Document;
    if (file.contentType === 'image/png') {
      try {
        document = { kind: file.kind, contentType: 'application/pdf', content: imagePdf(pngToPdfImage(content)) };
      } catch (error) {
        if (error instanceof PngError) throw new DisputeRefusedError(`${file.filename}: Adyen takes no PNG and it could not be made a PDF: ${error.message}.`);
        throw error;
      }
    } else if (file.contentType === 'application/pdf' || file.contentType === 'image/jpeg') {
      document = { kind: file.kind, contentType: file.contentType, content };
    } else {
      throw new DisputeRefusedError(`${file.filename}: Adyen takes PDF and JPEG documents, not ${file.contentType}.`);
    }
    const limit = document.contentType === 'application/pdf' ? ADYEN_PDF_MAX_BYTES : ADYEN_JPEG_MAX_BYTES;
    if (document.content.length > limit) {
      throw new DisputeRefusedError(`${file.filename}: Adyen takes ${document.contentType === 'application/pdf' ? 'PDF' : 'JPEG'} documents of at most ${limit / 1024 / 1024} MB; this one is ${(document.content.length / 1024 / 1024).toFixed(1)} MB.`);
    }
    documents.push(document);
  }
  const sections = Object.keys(FIELD_HEADINGS)
    .filter((field) => (defence.evidence[field] ?? '').trim() !== '')
    .map((field) => ({ heading: FIELD_HEADINGS[field]!, body: defence.evidence[field]! }));
  if (sections.length > 0) {
    const statement = textPdf(`Merchant's statement on the disputed payment ${defence.paymentToken}`, sections);
    if (statement.length > ADYEN_PDF_MAX_BYTES) throw new DisputeRefusedError('the text evidence makes a statement over 2 MB, more than Adyen takes.');
    documents.push({ kind: STATEMENT_KIND, contentType: 'application/pdf', content: statement });
  }
  return documents;
}
