/**
 * Valid payout items, one per country and account type (plus the second account-number form of PE CC
 * and CL CV). They are the examples shown in docs/payouts.md, in the same order, and the base that the
 * tests break one rule at a time; a test checks that the document still shows exactly these.
 *
 * Every identifier here is made up, with correct check digits: none is a real person's or company's.
 */
import type { AndeanCountry } from '../../rails/andean/countries';

/** A JSON value, as a payout item arrives in a request body. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

export interface PayoutExample {
  /** A short title, used as the heading of the example in docs/payouts.md. */
  readonly title: string;
  readonly country: AndeanCountry;
  readonly accountType: string;
  readonly item: { readonly [key: string]: JsonValue };
}

const NOTIFICATION_URL = 'https://merchant.example.com/payouts/callback';

/** The valid examples, in the order docs/payouts.md shows them. */
export const PAYOUT_EXAMPLES: readonly PayoutExample[] = [
  {
    title: 'CO, CC (current account), cédula de ciudadanía',
    country: 'CO',
    accountType: 'CC',
    item: {
      original_amount: 250000,
      original_currency: 'COP',
      payment_currency: 'COP',
      payment_country: 'CO',
      payout_method: 'BANK_TRANSFER',
      contract_id: 'PC-1001',
      reference_id: 'co-cc-0001',
      notification_url: NOTIFICATION_URL,
      required_CO: {
        bank_code: '1007',
        account_type: 'CC',
        account_number: '12345678901',
        tax_id: '1020304050',
        tax_id_type: 'CC',
        full_name: 'Andrés Felipe Gómez Restrepo',
      },
    },
  },
  {
    title: 'CO, CA (savings account), company NIT',
    country: 'CO',
    accountType: 'CA',
    item: {
      original_amount: '1250000.50',
      original_currency: 'COP',
      payment_currency: 'COP',
      payment_country: 'CO',
      payout_method: 'BANK_TRANSFER',
      contract_id: 'PC-1001',
      reference_id: 'co-ca-0001',
      notification_url: NOTIFICATION_URL,
      required_CO: {
        bank_code: '1051',
        account_type: 'CA',
        account_number: '0550123456789',
        tax_id: '9001234568',
        tax_id_type: 'NIT',
        email: 'tesoreria@empresa.example.co',
        full_name: 'Distribuciones Ejemplo S.A.S.',
      },
    },
  },
  {
    title: 'CO, NC (cellphone number, Transfiya), no bank code',
    country: 'CO',
    accountType: 'NC',
    item: {
      original_amount: 80000,
      original_currency: 'COP',
      payment_currency: 'COP',
      payment_country: 'CO',
      payout_method: 'BANK_TRANSFER',
      contract_id: 'PC-1001',
      reference_id: 'co-nc-0001',
      notification_url: NOTIFICATION_URL,
      required_CO: {
        account_type: 'NC',
        account_number: '573001234567',
        tax_id: 'E1234567',
        tax_id_type: 'CE',
      },
    },
  },
  {
    title: 'CO, DE (electronic deposit), tarjeta de identidad',
    country: 'CO',
    accountType: 'DE',
    item: {
      original_amount: '45000',
      original_currency: 'COP',
      payment_currency: 'COP',
      payment_country: 'CO',
      payout_method: 'BANK_TRANSFER',
      contract_id: 'PC-1001',
      reference_id: 'co-de-0001',
      notification_url: NOTIFICATION_URL,
      required_CO: {
        bank_code: '1507',
        account_type: 'DE',
        account_number: '3001234567',
        tax_id: '1012345678',
        tax_id_type: 'TI',
        email: 'laura.perez@correo.example.com',
      },
    },
  },
  {
    title: 'PE, CC (current account) at bank 002: 13-digit account number, DNI',
    country: 'PE',
    accountType: 'CC',
    item: {
      original_amount: '1500.75',
      original_currency: 'PEN',
      payment_currency: 'PEN',
      payment_country: 'PE',
      payout_method: 'BANK_TRANSFER',
      contract_id: 'PC-2001',
      reference_id: 'pe-cc-0001',
      notification_url: NOTIFICATION_URL,
      required_PE: {
        bank_code: '002',
        account_type: 'CC',
        account_number: '1932345678012',
        tax_id: '45678912',
        tax_id_type: 'DNI',
        email: 'rosa.quispe@correo.example.pe',
        full_name: 'Rosa Elena Quispe Mamani',
      },
    },
  },
  {
    title: 'PE, CA (savings account) at bank 002: 14-digit account number, carné de extranjería',
    country: 'PE',
    accountType: 'CA',
    item: {
      original_amount: 320.5,
      original_currency: 'PEN',
      payment_currency: 'PEN',
      payment_country: 'PE',
      payout_method: 'BANK_TRANSFER',
      contract_id: 'PC-2001',
      reference_id: 'pe-ca-0001',
      notification_url: NOTIFICATION_URL,
      required_PE: {
        bank_code: '002',
        account_type: 'CA',
        account_number: '19123456789012',
        tax_id: '001234567',
        tax_id_type: 'CE',
        email: 'carlos.mendez@correo.example.pe',
        full_name: 'Carlos Alberto Méndez Rojas',
      },
    },
  },
  {
    title: 'PE, CM (master account) at bank 003: CCI, company RUC',
    country: 'PE',
    accountType: 'CM',
    item: {
      original_amount: '98000.00',
      original_currency: 'PEN',
      payment_currency: 'PEN',
      payment_country: 'PE',
      payout_method: 'BANK_TRANSFER',
      contract_id: 'PC-2001',
      reference_id: 'pe-cm-0001',
      notification_url: NOTIFICATION_URL,
      required_PE: {
        bank_code: '003',
        account_type: 'CM',
        account_number: '00320000300123456731',
        tax_id: '20601234565',
        tax_id_type: 'RUC',
        email: 'pagos@comercial.example.pe',
        full_name: 'Comercial Ejemplo S.A.C.',
      },
    },
  },
  {
    title: 'PE, CC (current account) at bank 011: CCI, passport',
    country: 'PE',
    accountType: 'CC',
    item: {
      original_amount: '2500',
      original_currency: 'PEN',
      payment_currency: 'PEN',
      payment_country: 'PE',
      payout_method: 'BANK_TRANSFER',
      contract_id: 'PC-2001',
      reference_id: 'pe-cc-0002',
      notification_url: NOTIFICATION_URL,
      required_PE: {
        bank_code: '011',
        account_type: 'CC',
        account_number: '01115200010012345664',
        tax_id: 'AB1234567',
        tax_id_type: 'PAS',
        email: 'john.doe@mail.example.com',
        full_name: 'John Doe',
      },
    },
  },
  {
    title: 'CL, CC (current account), RUT with dots',
    country: 'CL',
    accountType: 'CC',
    item: {
      original_amount: 120000,
      original_currency: 'CLP',
      payment_currency: 'CLP',
      payment_country: 'CL',
      payout_method: 'BANK_TRANSFER',
      contract_id: 'PC-3001',
      reference_id: 'cl-cc-0001',
      notification_url: NOTIFICATION_URL,
      required_CL: {
        bank_code: '001',
        account_type: 'CC',
        account_number: '0012345678',
        tax_id: '12.345.678-5',
        tax_id_type: 'RUT',
        full_name: 'Camila Andrea Soto Fuentes',
      },
    },
  },
  {
    title: 'CL, CA (savings account), RUT without dots',
    country: 'CL',
    accountType: 'CA',
    item: {
      original_amount: '35990',
      original_currency: 'CLP',
      payment_currency: 'CLP',
      payment_country: 'CL',
      payout_method: 'BANK_TRANSFER',
      contract_id: 'PC-3001',
      reference_id: 'cl-ca-0001',
      notification_url: NOTIFICATION_URL,
      required_CL: {
        bank_code: '037',
        account_type: 'CA',
        account_number: '71234567',
        tax_id: '15555555-6',
        tax_id_type: 'RUT',
        email: 'diego.munoz@correo.example.cl',
        full_name: 'Diego Ignacio Muñoz Pérez',
      },
    },
  },
  {
    title: 'CL, CV (CuentaRUT) at BancoEstado (012): account number is the RUT body, check digit K',
    country: 'CL',
    accountType: 'CV',
    item: {
      original_amount: 50000,
      original_currency: 'CLP',
      payment_currency: 'CLP',
      payment_country: 'CL',
      payout_method: 'BANK_TRANSFER',
      contract_id: 'PC-3001',
      reference_id: 'cl-cv-0001',
      notification_url: NOTIFICATION_URL,
      required_CL: {
        bank_code: '012',
        account_type: 'CV',
        account_number: '19000001',
        tax_id: '19.000.001-K',
        tax_id_type: 'RUT',
        full_name: 'Javiera Paz Rojas Contreras',
      },
    },
  },
  {
    title: 'CL, CV (sight account) at another bank (016): the bank account number',
    country: 'CL',
    accountType: 'CV',
    item: {
      original_amount: '75000',
      original_currency: 'CLP',
      payment_currency: 'CLP',
      payment_country: 'CL',
      payout_method: 'BANK_TRANSFER',
      contract_id: 'PC-3001',
      reference_id: 'cl-cv-0002',
      notification_url: NOTIFICATION_URL,
      required_CL: {
        bank_code: '016',
        account_type: 'CV',
        account_number: '700012345601',
        tax_id: '18765432-7',
        tax_id_type: 'RUT',
        full_name: 'Matías Alejandro Vera Castillo',
      },
    },
  },
];
