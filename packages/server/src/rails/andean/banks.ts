/**
 * Bank codes accepted for payouts, per country, exactly as the payout interface lists them. The codes
 * are kept as strings because their leading zeros are significant (`002` is not `2`).
 */
import type { AndeanCountry } from './countries';

/** Colombian bank codes (four digits). */
export const CO_BANK_CODES: ReadonlySet<string> = new Set([
  '1000', '1001', '1002', '1005', '1006', '1007', '1009', '1012', '1013', '1019', '1022', '1023', '1031',
  '1032', '1040', '1042', '1047', '1051', '1052', '1053', '1058', '1059', '1060', '1061', '1062', '1063',
  '1065', '1066', '1067', '1069', '1070', '1071', '1077', '1080', '1081', '1083', '1084', '1086', '1088',
  '1089', '1097', '1108', '1121', '1283', '1286', '1289', '1291', '1292', '1303', '1370', '1507', '1513',
  '1550', '1551', '1558', '1560', '1637', '1683', '1684', '1685', '1801', '1802', '1803', '1804', '1805',
  '1808', '1809', '1811', '1812', '1814', '1815', '1816', '1819',
]);

/** Peruvian bank codes (three digits; the same numbering as the first three digits of a CCI). */
export const PE_BANK_CODES: ReadonlySet<string> = new Set([
  '001', '002', '003', '007', '009', '011', '018', '023', '035', '038', '043', '049', '053', '054', '055',
  '056', '057', '058', '059', '060', '062', '063', '073', '091', '093', '094', '096', '099', '256', '776',
  '800', '801', '802', '803', '805', '806', '808', '809', '811', '813', '849', '901', '902', '904', '910',
  '921', '922',
]);

/** Chilean bank codes (three digits). */
export const CL_BANK_CODES: ReadonlySet<string> = new Set([
  '001', '008', '009', '010', '011', '012', '014', '016', '017', '018', '027', '028', '029', '031', '032',
  '033', '034', '036', '037', '038', '039', '040', '041', '042', '043', '045', '046', '049', '051', '052',
  '053', '054', '055', '056', '057', '059', '301', '302', '329', '504', '507', '672', '716', '731', '733',
  '734',
]);

/** The allowed bank codes of each country. */
export const BANK_CODES: Readonly<Record<AndeanCountry, ReadonlySet<string>>> = {
  CO: CO_BANK_CODES,
  PE: PE_BANK_CODES,
  CL: CL_BANK_CODES,
};

/**
 * Banco de Crédito del Perú (BCP). Payouts to it take the bank's own account number (13 digits for a
 * current account, 14 for savings); every other Peruvian bank takes the 20-digit interbank code (CCI).
 */
export const PE_BCP_BANK_CODE = '002';

/**
 * BancoEstado, the state bank of Chile. Its sight accounts (CuentaRUT) are numbered with the holder's
 * RUT without the check digit.
 */
export const CL_STATE_BANK_CODE = '012';

/**
 * Whether `code` is an allowed bank code for payouts to `country`. Matching is exact: no trimming, no padding.
 * @example isAllowedBankCode('CL', '012') // true
 * @example isAllowedBankCode('PE', '2')   // false: Peruvian codes keep their leading zeros
 */
export function isAllowedBankCode(country: AndeanCountry, code: string): boolean {
  return BANK_CODES[country].has(code);
}
