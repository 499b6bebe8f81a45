import { Type, type Static } from 'typebox';
import { StringEnum } from '../http/schema-kit';

/**
 * Schemas of the 3DS endpoints. The authentication request is what the browser library sends: the
 * spec's request (Client-side 3DS library) plus `contractId` and `env` from `Colibri.setUp`. The
 * schema fixes types and bounds, for validation and OpenAPI; the spec's rules between fields
 * (addresses that `disableAddress` and `partialAddress` relax, Luhn, ISO countries) are checked by
 * the library's own validator, run again on the server (start-authentication.ts), so a caller that
 * bypasses the library meets exactly the same rules.
 */

const text = (maxLength: number, description?: string) => Type.String({ maxLength, ...(description ? { description } : {}) });

const Address = Type.Object({
  partialAddress: Type.Optional(Type.Boolean({ description: 'when true only postalCode and number are required' })),
  street: Type.Optional(text(120)),
  number: text(20),
  complement: Type.Optional(text(120)),
  regionCode: Type.Optional(text(10)),
  country: Type.Optional(text(3, 'ISO 3166-1 alpha-3, default BRA')),
  city: Type.Optional(text(120)),
  postalCode: text(8, '8 digits'),
});

export const AuthenticationBody = Type.Object(
  {
    contractId: Type.String({ minLength: 1, maxLength: 64, description: "the merchant's public contract id" }),
    env: StringEnum(['PROD', 'SANDBOX'] as const),
    notificationUrl: text(2048),
    referenceId: text(45),
    disableAddress: Type.Optional(Type.Boolean()),
    customer: Type.Object({
      id: text(32, 'tax id: CPF or CNPJ'),
      name: text(200),
      email: text(254),
      phones: Type.Array(
        Type.Object({
          country: Type.Optional(Type.Integer()),
          area: Type.Integer({ description: 'two digits' }),
          number: Type.Integer({ description: '8 to 9 digits' }),
          type: Type.Optional(Type.String({ maxLength: 16 })),
        }),
        { minItems: 1, maxItems: 5 },
      ),
    }),
    paymentMethod: Type.Object({
      type: StringEnum(['CREDIT_CARD', 'DEBIT_CARD'] as const),
      installments: Type.Optional(Type.Integer({ description: '1 to 12, default 1' })),
      card: Type.Object({
        number: text(19, 'digits only'),
        expMonth: text(2),
        expYear: text(4, 'with century'),
        cvv: text(4, 'sent to the processor for verification, never stored'),
        holder: Type.Object({ name: text(100) }),
      }),
    }),
    amount: Type.Object({ value: Type.Integer({ description: 'cents' }), currency: Type.String({ maxLength: 3, description: 'BRL' }) }),
    billingAddress: Type.Optional(Address),
    shippingAddress: Type.Optional(Address),
  },
  { title: '3DS authentication request (from the browser library)' },
);
export type AuthenticationRequest = Static<typeof AuthenticationBody>;

export const AuthenticationAnswer = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'the 3DS authentication id' }),
    status: StringEnum(['SUCCESS', 'CHALLENGE', 'UNENROLLED', 'FAILURE', 'ERROR'] as const),
    paymentToken: Type.Optional(Type.String({ format: 'uuid', description: 'on SUCCESS: the token the payment will have' })),
    challengeUrl: Type.Optional(Type.String({ description: 'on CHALLENGE: the path of the issuer challenge page, to show in an iframe' })),
    error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
  },
  { title: '3DS authentication answer' },
);
export type AuthenticationAnswerBody = Static<typeof AuthenticationAnswer>;

export const ChallengeParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const ChallengeBody = Type.Object({ code: Type.String({ maxLength: 16, description: 'the one-time code the customer typed' }) });

export const ThreeDsPaymentBody = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, description: 'the 3DS authentication id from onSuccess' }),
    paymentToken: Type.String({ minLength: 1, maxLength: 64, description: 'the paymentToken from onSuccess' }),
    amount: Type.String({ minLength: 1, maxLength: 20, description: "the merchant's own order amount, a decimal string as in sendPayment; must be the authenticated amount" }),
    reference_id: Type.String({ minLength: 1, maxLength: 45, description: "the merchant's own order reference; must be the authenticated referenceId" }),
  },
  { title: '3DS payment request' },
);
export type ThreeDsPaymentInput = Static<typeof ThreeDsPaymentBody>;
