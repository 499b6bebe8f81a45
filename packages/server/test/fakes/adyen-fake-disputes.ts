/**
 * The Disputes API (v30) of the Adyen fake (adyen-fake.ts), written from Adyen's public documentation:
 * DisputeService-v30.json (paths, models and examples in Adyen's OpenAPI specifications) and the
 * defence requirements pages. It keeps a book of disputes, the documents supplied for each, and what
 * was defended or accepted, and answers as Adyen does: HTTP 200 with `disputeServiceResult.success`,
 * false with an `errorMessage` when it refuses. A test can queue refusals (`refuse`).
 */

/** Each operation (the last path segment) and the model its request must conform to. */
export const DISPUTE_OPERATIONS: Readonly<Record<string, string>> = {
  retrieveApplicableDefenseReasons: 'DefenseReasonsRequest',
  supplyDefenseDocument: 'SupplyDefenseDocumentRequest',
  deleteDisputeDefenseDocument: 'DeleteDefenseDocumentRequest',
  defendDispute: 'DefendDisputeRequest',
  acceptDispute: 'AcceptDisputeRequest',
};

type Level = 'Required' | 'OneOrMore' | 'Optional' | 'AlternativeRequired';
type Reasons = Readonly<Record<string, readonly (readonly [string, Level])[]>>;

/**
 * The defence reasons offered per network reason code, with their document types: Visa 10.4 and 13.1
 * and Mastercard 4853 as in Adyen's dispute examples; any other code gets the defences of the
 * Disputes API reference's example answer.
 */
const DEFENCES: Readonly<Record<string, Reasons>> = {
  '10.4': {
    AdditionalInformation: [['DefenseMaterial', 'Required'], ['AdditionalInformation', 'Required']],
    SupplyDefenseMaterial: [['DefenseMaterial', 'Required'], ['TIDorInvoice', 'Optional']],
  },
  '13.1': {
    InvalidChargeback: [['InvalidChargeback', 'Optional']],
    MerchandiseReceived: [['DateMerchandiseShipped', 'Required'], ['ProofOfGoodsOrServicesProvided', 'Required']],
    ServicesProvided: [['ProofOfGoodsOrServicesProvided', 'Required']],
  },
  '4853': {
    GoodsNotReturned: [['GoodsNotReturned', 'Required'], ['TIDorInvoice', 'Optional']],
    GoodsWereAsDescribed: [['GoodsWereAsDescribed', 'Required'], ['TIDorInvoice', 'Required']],
    SupplyDefenseMaterial: [['DefenseMaterial', 'Required'], ['TIDorInvoice', 'Optional']],
  },
};
const DEFAULT_DEFENCES: Reasons = {
  GoodsNotReturned: [['TIDorInvoice', 'Optional'], ['GoodsNotReturned', 'Required']],
  GoodsRepairedOrReplaced: [['TIDorInvoice', 'Optional'], ['GoodsRepairedOrReplaced', 'Required']],
  GoodsWereAsDescribed: [['GoodsWereAsDescribed', 'Required'], ['TIDorInvoice', 'Required']],
  SupplyDefenseMaterial: [['TIDorInvoice', 'Optional'], ['DefenseMaterial', 'Required']],
};

/** Adyen's formats and sizes for defence documents ("Defense requirements"): PDF up to 2 MB, JPG and TIFF up to 10 MB. */
const FORMATS: Readonly<Record<string, { magic: Buffer[]; maxBytes: number }>> = {
  'application/pdf': { magic: [Buffer.from('%PDF-')], maxBytes: 2 * 1024 * 1024 },
  'image/jpeg': { magic: [Buffer.from([0xff, 0xd8, 0xff])], maxBytes: 10 * 1024 * 1024 },
  'image/tiff': { magic: [Buffer.from('II*\0', 'latin1'), Buffer.from('MM\0*', 'latin1')], maxBytes: 10 * 1024 * 1024 },
};

export interface FakeDefenceDocument {
  defenseDocumentTypeCode: string;
  contentType: string;
  content: Buffer;
}

export interface FakeDispute {
  pspReference: string;
  paymentPspReference: string;
  merchantReference: string;
  amount: { currency: string; value: number };
  reasonCode: string;
  schemeCode: string;
  reason: string;
  status: 'Undefended' | 'Pending' | 'Accepted';
  documents: FakeDefenceDocument[];
  defenseReasonCode?: string;
}

const result = (success: boolean, errorMessage?: string) => ({ disputeServiceResult: { success, ...(errorMessage ? { errorMessage } : {}) } });

export class FakeDisputes {
  readonly byPsp = new Map<string, FakeDispute>();
  /** Refusals to answer next, in order: the next call of `operation` answers success false with `errorMessage`. */
  readonly refusals: { operation: string; errorMessage: string }[] = [];

  open(input: { pspReference: string; payment: { pspReference: string; reference: string }; reasonCode: string; schemeCode: string; amount: { currency: string; value: number }; reason: string }): FakeDispute {
    const dispute: FakeDispute = {
      pspReference: input.pspReference,
      paymentPspReference: input.payment.pspReference,
      merchantReference: input.payment.reference,
      amount: input.amount,
      reasonCode: input.reasonCode,
      schemeCode: input.schemeCode,
      reason: input.reason,
      status: 'Undefended',
      documents: [],
    };
    this.byPsp.set(dispute.pspReference, dispute);
    return dispute;
  }

  refuse(operation: keyof typeof DISPUTE_OPERATIONS, errorMessage: string): void {
    this.refusals.push({ operation, errorMessage });
  }

  /** The defences offered for the dispute, with what its documents cover, as retrieveApplicableDefenseReasons answers them. */
  defenceReasons(dispute: FakeDispute) {
    const offered = DEFENCES[dispute.reasonCode.trim()] ?? DEFAULT_DEFENCES;
    const supplied = new Set(dispute.documents.map((d) => d.defenseDocumentTypeCode));
    return Object.entries(offered).map(([defenseReasonCode, types]) => {
      const required = types.filter(([, level]) => level === 'Required' || level === 'AlternativeRequired');
      const oneOrMore = types.filter(([, level]) => level === 'OneOrMore');
      const satisfied =
        required.every(([type]) => supplied.has(type)) && (oneOrMore.length === 0 || oneOrMore.some(([type]) => supplied.has(type))) && types.some(([type]) => supplied.has(type));
      return {
        defenseDocumentTypes: types.map(([defenseDocumentTypeCode, requirementLevel]) => ({ available: supplied.has(defenseDocumentTypeCode), defenseDocumentTypeCode, requirementLevel })),
        defenseReasonCode,
        satisfied,
      };
    });
  }

  /** One Disputes API call (its request already checked against the library's model). */
  process(operation: string, body: Record<string, unknown>): unknown {
    const refusal = this.refusals[0];
    if (refusal?.operation === operation) {
      this.refusals.shift();
      return result(false, refusal.errorMessage);
    }
    const dispute = this.byPsp.get(body.disputePspReference as string);
    if (!dispute) return result(false, 'Could not find dispute');
    const reasons = this.defenceReasons(dispute);
    if (operation === 'retrieveApplicableDefenseReasons') return { ...result(true), defenseReasons: reasons };
    if (dispute.status !== 'Undefended') return result(false, `Dispute is already ${dispute.status === 'Accepted' ? 'accepted' : 'defended'}`);
    if (operation === 'acceptDispute') {
      dispute.status = 'Accepted';
      return result(true);
    }
    if (operation === 'deleteDisputeDefenseDocument') {
      dispute.documents = dispute.documents.filter((d) => d.defenseDocumentTypeCode !== body.defenseDocumentType);
      return result(true);
    }
    if (operation === 'supplyDefenseDocument') {
      const types = new Set(reasons.flatMap((r) => r.defenseDocumentTypes.map((t) => t.defenseDocumentTypeCode)));
      const documents: FakeDefenceDocument[] = [];
      for (const document of body.defenseDocuments as { content: string; contentType: string; defenseDocumentTypeCode: string }[]) {
        if (!types.has(document.defenseDocumentTypeCode)) return result(false, `Invalid defense document type code: ${document.defenseDocumentTypeCode}`);
        const format = FORMATS[document.contentType];
        if (!format) return result(false, `Unsupported content type: ${document.contentType}`);
        const content = Buffer.from(document.content, 'base64');
        if (!format.magic.some((magic) => content.subarray(0, magic.length).equals(magic))) return result(false, 'The document content does not match its content type');
        if (content.length > format.maxBytes) return result(false, 'The document exceeds the maximum file size');
        documents.push({ defenseDocumentTypeCode: document.defenseDocumentTypeCode, contentType: document.contentType, content });
      }
      dispute.documents.push(...documents);
      return result(true);
    }
    // defendDispute
    const reason = reasons.find((r) => r.defenseReasonCode === body.defenseReasonCode);
    if (!reason) return result(false, `Defense reason ${String(body.defenseReasonCode)} is not applicable to this dispute`);
    if (!reason.satisfied) return result(false, 'Not all required defense documents have been supplied');
    dispute.status = 'Pending';
    dispute.defenseReasonCode = reason.defenseReasonCode;
    return result(true);
  }
}
