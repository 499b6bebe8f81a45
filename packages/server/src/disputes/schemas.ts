import { Type } from 'typebox';
import { PageSchema } from '../http/page';
import { StatusEnum, StringEnum } from '../http/schema-kit';
import { EVIDENCE_FILE_KINDS, EVIDENCE_TEXT_FIELDS, EVIDENCE_TEXT_MAX } from './evidence-fields';
import { EVIDENCE_CONTENT_TYPES } from './evidence-files';
import { DISPUTE_PROCESSORS, DISPUTE_REASON_CATEGORIES, DISPUTE_STAGES, DISPUTE_STATUSES } from './states';

/** Request and response schemas of the dispute endpoints (CONTRACTS.md, Disputes; docs/disputes.md). */

const Time = (description: string) => Type.Union([Type.String({ description }), Type.Null()]);
const Nullable = (description: string) => Type.Union([Type.String({ description }), Type.Null()]);

export const EvidenceFile = Type.Object(
  {
    file_id: Type.String({ format: 'uuid' }),
    kind: StatusEnum(EVIDENCE_FILE_KINDS),
    filename: Type.String(),
    content_type: StatusEnum(EVIDENCE_CONTENT_TYPES, { description: 'the type its content shows (never its name or declared type)' }),
    size: Type.Integer({ description: 'bytes' }),
    created_at: Type.String({ description: 'yyyy-MM-dd HH:mm:ss (UTC, merchant clock)' }),
  },
  { title: 'DisputeEvidenceFile' },
);

export const Evidence = Type.Object(
  {
    ...Object.fromEntries(EVIDENCE_TEXT_FIELDS.map((field) => [field, Nullable(`text evidence, at most ${EVIDENCE_TEXT_MAX} characters`)])),
    files: Type.Array(EvidenceFile),
  },
  { title: 'DisputeEvidence' },
);

export const DisputeFields = {
  dispute_id: Type.String({ format: 'uuid' }),
  payment_token: Type.String({ format: 'uuid' }),
  reference_id: Type.String({ description: "the payment's reference_id" }),
  status: StatusEnum(DISPUTE_STATUSES),
  reason_code: Type.String({ description: "the network's reason code, as it gave it (Visa 10.4, Mastercard 4837, MED_FRAUDE)" }),
  reason_category: StatusEnum(DISPUTE_REASON_CATEGORIES),
  reason_description: Nullable("the reason code's name"),
  stage: StatusEnum(DISPUTE_STAGES),
  amount: Type.Number({ description: 'the disputed amount, at most what was captured less what was refunded' }),
  asset: Type.String({ description: "the payment's currency" }),
  fee: Type.Number({ description: 'the dispute fee charged when the chargeback took the money (fee plan)' }),
  processor: StatusEnum(DISPUTE_PROCESSORS),
  evidence_due_by: Time('yyyy-MM-dd HH:mm:ss (UTC, merchant clock): a dispute still NEEDS_RESPONSE then becomes LOST'),
  created_at: Type.String({ description: 'yyyy-MM-dd HH:mm:ss (UTC, merchant clock)' }),
  submitted_at: Time('when the evidence was submitted'),
  won_at: Time('when it was WON'),
  lost_at: Time('when it was LOST'),
  accepted_at: Time('when the merchant ACCEPTED it'),
  evidence: Evidence,
};

export const DisputeResponse = Type.Object({ ...DisputeFields, refresh_token: Type.String() }, { title: 'Dispute' });
export const DisputeItem = Type.Object(DisputeFields, { title: 'DisputeItem' });
export const DisputePage = PageSchema(DisputeItem, 'DisputePage', { refresh_token: Type.String() });

export const DisputeParams = Type.Object({ dispute_id: Type.String({ maxLength: 64 }) });
export const EvidenceFileParams = Type.Object({ dispute_id: Type.String({ maxLength: 64 }), file_id: Type.String({ maxLength: 64 }) });

/** Page sizes of `GET /disputes`, as the reports list's. */
export const DISPUTE_PAGE_SIZE = { default: 20, max: 100 } as const;

export const DisputeListQuery = Type.Object({
  size: Type.Integer({ minimum: 1, maximum: DISPUTE_PAGE_SIZE.max, default: DISPUTE_PAGE_SIZE.default, description: `disputes per page, at most ${DISPUTE_PAGE_SIZE.max}` }),
  page: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'page number, from 0' }),
  status: Type.Optional(StringEnum(DISPUTE_STATUSES)),
  from: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD: opened on or after this day (UTC, merchant clock)' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD: opened on or before this day' })),
});

export const EvidenceTextBody = Type.Object(
  Object.fromEntries(EVIDENCE_TEXT_FIELDS.map((field) => [field, Type.Optional(Type.String({ maxLength: EVIDENCE_TEXT_MAX }))])),
  { additionalProperties: false, minProperties: 1 },
);

/** The multipart form of `POST /disputes/<dispute_id>/evidence`: documented here, checked as it streams (evidence-files.ts). */
export const EvidenceFileForm = Type.Object(
  {
    file: Type.String({ format: 'binary', description: 'A PDF, JPEG or PNG file, at most 5 MB (10 MB for all of a dispute\'s files); its type is read from its content' }),
    kind: Type.Optional(StringEnum(EVIDENCE_FILE_KINDS, { description: 'what the file shows; uncategorized when absent' })),
  },
  { title: 'DisputeEvidenceUpload' },
);
