import Negotiator from 'negotiator';

/**
 * The page's words, in Portuguese (Brazil's methods), Spanish (Mexico's: OXXO, PAYNET, SPEI) and English.
 * Every string the page or its script shows is here, so a translation is one table. Which one a page
 * speaks is chosen by `chooseLang`.
 */
export const LANGS = ['pt', 'es', 'en'] as const;
export type Lang = (typeof LANGS)[number];

/** Each language's own name, for the links that switch to it. */
export const LANGUAGE_NAMES: Readonly<Record<Lang, { name: string; tag: string }>> = {
  pt: { name: 'Português', tag: 'pt-BR' },
  es: { name: 'Español', tag: 'es-MX' },
  en: { name: 'English', tag: 'en' },
};

const PT = {
  htmlLang: 'pt-BR',
  title: 'Pagamento',
  payTo: 'Pagamento para',
  amount: 'Valor',
  chooseMethod: 'Escolha como pagar',
  PIX: 'PIX',
  CREDITCARD: 'Cartão de crédito',
  DEBITCARD: 'Cartão de débito',
  BOLETO: 'Boleto bancário',
  PICPAY: 'PicPay',
  OXXO: 'OXXO',
  PAYNET: 'PAYNET',
  SPEI: 'SPEI',
  otherMethod: 'Escolher outra forma de pagamento',
  pixInstructions: 'Copie o código e cole no app do seu banco, em PIX copia e cola, ou leia o QR code com o app.',
  pixQrLabel: 'QR code PIX para pagar',
  pixCodeLabel: 'PIX copia e cola',
  copy: 'Copiar código',
  copied: 'Código copiado',
  expiresIn: 'Expira em',
  waiting: 'Aguardando pagamento…',
  boletoInstructions: 'Pague o boleto no app do seu banco, no internet banking ou em uma lotérica até o vencimento.',
  digitableLine: 'Linha digitável',
  barcodeLabel: 'Código de barras do boleto',
  dueDate: 'Vencimento',
  print: 'Imprimir boleto',
  payerSection: 'Seus dados',
  name: 'Nome completo',
  email: 'E-mail',
  taxId: 'CPF',
  cardSection: 'Dados do cartão',
  cardNumber: 'Número do cartão',
  expiry: 'Validade (MM/AA)',
  expiryPlaceholder: 'MM/AA',
  phone: 'Celular (com DDD)',
  phoneInvalid: 'Celular inválido: DDD e 8 ou 9 dígitos.',
  authenticating: 'Confirme a compra com o seu banco…',
  authFailed: 'O banco não confirmou a compra. Tente de novo ou use outro cartão.',
  compensating: 'Pagamento recebido; o boleto compensa no próximo dia útil.',
  voucherInstructions: 'Apresente a referência ou o código de barras no caixa e pague em dinheiro até o prazo.',
  voucherReference: 'Referência',
  printVoucher: 'Imprimir comprovante',
  speiInstructions: 'Faça uma transferência SPEI do valor exato para a CLABE abaixo, no app do seu banco.',
  speiReference: 'Referência numérica',
  picpayInstructions: 'Abra o PicPay e leia o QR code, ou toque no botão no celular.',
  picpayQrLabel: 'QR code PicPay para pagar',
  picpayOpen: 'Abrir o PicPay',
  sandboxBadge: 'Sandbox: pagamento de teste, nenhum dinheiro real é movimentado',
  cvv: 'CVV',
  holder: 'Nome impresso no cartão',
  installments: 'Parcelas',
  installmentOption: '{n}x de {amount}',
  installmentInterestFree: 'sem juros',
  installmentWithInterest: 'com juros',
  pay: 'Pagar',
  luhnInvalid: 'Número de cartão inválido: confira os dígitos.',
  expiryInvalid: 'Validade inválida: use MM/AA.',
  cvvInvalid: 'CVV inválido.',
  required: 'Preencha todos os campos.',
  // Issue 36, the page on a phone: the order summary, method hints, card brands, CPF and expiry checks, the error summary.
  orderSummary: 'Resumo do pedido',
  orderReference: 'Pedido',
  hintPIX: 'Aprovação imediata',
  hintBOLETO: 'Aprovação em 1–3 dias úteis',
  hintCREDITCARD: 'À vista ou parcelado',
  hintDEBITCARD: 'Aprovação imediata',
  hintPICPAY: 'Pague pelo app PicPay',
  hintOXXO: 'Pague em dinheiro na loja',
  hintPAYNET: 'Pague em dinheiro na loja',
  hintSPEI: 'Transferência bancária',
  installmentTotal: '(total {amount})',
  brandsAccepted: 'Bandeiras aceitas',
  brandNotAccepted: 'Cartão {brand} não é aceito. Use um cartão de outra bandeira.',
  taxIdInvalid: 'CPF inválido: confira os números.',
  expiryMonthInvalid: 'Validade inválida: o mês vai de 01 a 12.',
  cardExpired: 'Cartão vencido: confira a validade.',
  fieldRequired: 'Preencha o campo “{field}”.',
  errorSummaryTitle: 'Confira os dados',
  processing: 'Processando o pagamento…',
  submitFailed: 'Não foi possível enviar o pagamento. Tente novamente.',
  declinedRetry: 'O pagamento anterior não foi aprovado. Escolha outra forma de pagamento ou tente outro cartão.',
  paidTitle: 'Pagamento aprovado',
  paidText: 'Obrigado! Seu pagamento foi confirmado.',
  canceledTitle: 'Pagamento não concluído',
  canceledText: 'O pagamento não foi aprovado.',
  expiredTitle: 'Pagamento expirado',
  expiredText: 'O prazo para pagar terminou.',
  errorTitle: 'Erro no pagamento',
  errorText: 'Houve um erro ao processar o pagamento.',
  backToShop: 'Voltar à loja',
  redirecting: 'Redirecionando…',
  scheme: 'Bandeira',
  languages: 'Idioma',
} as const;

export type Messages = { readonly [K in keyof typeof PT]: string };

const EN: Messages = {
  htmlLang: 'en',
  title: 'Payment',
  payTo: 'Payment to',
  amount: 'Amount',
  chooseMethod: 'Choose how to pay',
  PIX: 'PIX',
  CREDITCARD: 'Credit card',
  DEBITCARD: 'Debit card',
  BOLETO: 'Boleto',
  PICPAY: 'PicPay',
  OXXO: 'OXXO',
  PAYNET: 'PAYNET',
  SPEI: 'SPEI',
  otherMethod: 'Choose another payment method',
  pixInstructions: "Copy the code and paste it in your bank's app under PIX copy and paste, or scan the QR code with the app.",
  pixQrLabel: 'PIX QR code to pay',
  pixCodeLabel: 'PIX copy and paste code',
  copy: 'Copy code',
  copied: 'Code copied',
  expiresIn: 'Expires in',
  waiting: 'Waiting for payment…',
  boletoInstructions: "Pay the boleto in your bank's app, internet banking or a lottery shop by the due date.",
  digitableLine: 'Digitable line',
  barcodeLabel: 'Boleto barcode',
  dueDate: 'Due date',
  print: 'Print boleto',
  payerSection: 'Your details',
  name: 'Full name',
  email: 'E-mail',
  taxId: 'CPF (Brazilian tax id)',
  cardSection: 'Card details',
  cardNumber: 'Card number',
  expiry: 'Expiry (MM/YY)',
  expiryPlaceholder: 'MM/YY',
  phone: 'Mobile phone (with area code)',
  phoneInvalid: 'Invalid mobile phone: area code and 8 or 9 digits.',
  authenticating: 'Confirm the purchase with your bank…',
  authFailed: 'Your bank did not confirm the purchase. Try again or use another card.',
  compensating: 'Payment received; the boleto compensates on the next business day.',
  voucherInstructions: 'Show the reference or the barcode at the till and pay in cash before it expires.',
  voucherReference: 'Reference',
  printVoucher: 'Print voucher',
  speiInstructions: "Make a SPEI transfer of the exact amount to the CLABE below in your bank's app.",
  speiReference: 'Numeric reference',
  picpayInstructions: 'Open PicPay and scan the QR code, or tap the button on your phone.',
  picpayQrLabel: 'PicPay QR code to pay',
  picpayOpen: 'Open PicPay',
  sandboxBadge: 'Sandbox: a test payment, no real money moves',
  cvv: 'CVV',
  holder: 'Name on card',
  installments: 'Installments',
  installmentOption: '{n}x of {amount}',
  installmentInterestFree: 'interest-free',
  installmentWithInterest: 'with interest',
  pay: 'Pay',
  luhnInvalid: 'Invalid card number: check the digits.',
  expiryInvalid: 'Invalid expiry: use MM/YY.',
  cvvInvalid: 'Invalid CVV.',
  required: 'Fill in every field.',
  orderSummary: 'Order summary',
  orderReference: 'Order',
  hintPIX: 'Approved at once',
  hintBOLETO: 'Approved in 1–3 business days',
  hintCREDITCARD: 'In full or in installments',
  hintDEBITCARD: 'Approved at once',
  hintPICPAY: 'Pay in the PicPay app',
  hintOXXO: 'Pay cash at the store',
  hintPAYNET: 'Pay cash at the store',
  hintSPEI: 'Bank transfer',
  installmentTotal: '(total {amount})',
  brandsAccepted: 'Accepted cards',
  brandNotAccepted: '{brand} cards are not accepted. Use a card of another brand.',
  taxIdInvalid: 'Invalid CPF: check the digits.',
  expiryMonthInvalid: 'Invalid expiry: the month runs from 01 to 12.',
  cardExpired: 'This card has expired: check the expiry date.',
  fieldRequired: 'Fill in “{field}”.',
  errorSummaryTitle: 'Please check your details',
  processing: 'Processing the payment…',
  submitFailed: 'The payment could not be sent. Please try again.',
  declinedRetry: 'The previous payment was not approved. Choose another payment method or try another card.',
  paidTitle: 'Payment approved',
  paidText: 'Thank you! Your payment is confirmed.',
  canceledTitle: 'Payment not completed',
  canceledText: 'The payment was not approved.',
  expiredTitle: 'Payment expired',
  expiredText: 'The time to pay is over.',
  errorTitle: 'Payment error',
  errorText: 'There was an error processing the payment.',
  backToShop: 'Back to the shop',
  redirecting: 'Redirecting…',
  scheme: 'Card brand',
  languages: 'Language',
};


const ES: Messages = {
  htmlLang: 'es-MX',
  title: 'Pago',
  payTo: 'Pago a',
  amount: 'Monto',
  chooseMethod: 'Elige cómo pagar',
  PIX: 'PIX',
  CREDITCARD: 'Tarjeta de crédito',
  DEBITCARD: 'Tarjeta de débito',
  BOLETO: 'Boleto bancario',
  PICPAY: 'PicPay',
  OXXO: 'OXXO',
  PAYNET: 'PAYNET',
  SPEI: 'SPEI',
  otherMethod: 'Elegir otra forma de pago',
  pixInstructions: 'Copia el código y pégalo en la app de tu banco, en PIX copiar y pegar, o escanea el código QR con la app.',
  pixQrLabel: 'Código QR de PIX para pagar',
  pixCodeLabel: 'Código PIX para copiar y pegar',
  copy: 'Copiar código',
  copied: 'Código copiado',
  expiresIn: 'Vence en',
  waiting: 'Esperando el pago…',
  boletoInstructions: 'Paga el boleto en la app de tu banco, en la banca en línea o en una lotería antes del vencimiento.',
  digitableLine: 'Línea digitable',
  barcodeLabel: 'Código de barras',
  dueDate: 'Vencimiento',
  print: 'Imprimir boleto',
  payerSection: 'Tus datos',
  name: 'Nombre completo',
  email: 'Correo electrónico',
  taxId: 'CPF (identificación fiscal de Brasil)',
  cardSection: 'Datos de la tarjeta',
  cardNumber: 'Número de tarjeta',
  expiry: 'Vencimiento (MM/AA)',
  expiryPlaceholder: 'MM/AA',
  phone: 'Celular (con lada)',
  phoneInvalid: 'Celular inválido: lada y 8 o 9 dígitos.',
  authenticating: 'Confirma la compra con tu banco…',
  authFailed: 'Tu banco no confirmó la compra. Inténtalo de nuevo o usa otra tarjeta.',
  compensating: 'Pago recibido; el boleto se acredita el siguiente día hábil.',
  voucherInstructions: 'Muestra la referencia o el código de barras en caja y paga en efectivo antes de que venza.',
  voucherReference: 'Referencia',
  printVoucher: 'Imprimir ficha de pago',
  speiInstructions: 'Haz una transferencia SPEI por el monto exacto a la CLABE de abajo desde la app de tu banco.',
  speiReference: 'Referencia numérica',
  picpayInstructions: 'Abre PicPay y escanea el código QR, o toca el botón en tu celular.',
  picpayQrLabel: 'Código QR de PicPay para pagar',
  picpayOpen: 'Abrir PicPay',
  sandboxBadge: 'Sandbox: pago de prueba, no se mueve dinero real',
  cvv: 'CVV',
  holder: 'Nombre como aparece en la tarjeta',
  installments: 'Pagos',
  installmentOption: '{n} x {amount}',
  installmentInterestFree: 'sin intereses',
  installmentWithInterest: 'con intereses',
  pay: 'Pagar',
  luhnInvalid: 'Número de tarjeta inválido: revisa los dígitos.',
  expiryInvalid: 'Vencimiento inválido: usa MM/AA.',
  cvvInvalid: 'CVV inválido.',
  required: 'Completa todos los campos.',
  orderSummary: 'Resumen del pedido',
  orderReference: 'Pedido',
  hintPIX: 'Aprobación inmediata',
  hintBOLETO: 'Aprobación en 1–3 días hábiles',
  hintCREDITCARD: 'De contado o a meses',
  hintDEBITCARD: 'Aprobación inmediata',
  hintPICPAY: 'Paga en la app de PicPay',
  hintOXXO: 'Paga en efectivo en la tienda',
  hintPAYNET: 'Paga en efectivo en la tienda',
  hintSPEI: 'Transferencia bancaria',
  installmentTotal: '(total {amount})',
  brandsAccepted: 'Tarjetas aceptadas',
  brandNotAccepted: 'No se aceptan tarjetas {brand}. Usa una tarjeta de otra marca.',
  taxIdInvalid: 'CPF inválido: revisa los números.',
  expiryMonthInvalid: 'Vencimiento inválido: el mes va de 01 a 12.',
  cardExpired: 'Tarjeta vencida: revisa el vencimiento.',
  fieldRequired: 'Completa el campo “{field}”.',
  errorSummaryTitle: 'Revisa tus datos',
  processing: 'Procesando el pago…',
  submitFailed: 'No se pudo enviar el pago. Inténtalo de nuevo.',
  declinedRetry: 'El pago anterior no fue aprobado. Elige otra forma de pago o prueba otra tarjeta.',
  paidTitle: 'Pago aprobado',
  paidText: '¡Gracias! Tu pago está confirmado.',
  canceledTitle: 'Pago no completado',
  canceledText: 'El pago no fue aprobado.',
  expiredTitle: 'Pago vencido',
  expiredText: 'Terminó el plazo para pagar.',
  errorTitle: 'Error en el pago',
  errorText: 'Hubo un error al procesar el pago.',
  backToShop: 'Volver a la tienda',
  redirecting: 'Redirigiendo…',
  scheme: 'Marca de la tarjeta',
  languages: 'Idioma',
};

/** @example messages('es').pay // 'Pagar' */
export function messages(lang: Lang): Messages {
  return lang === 'en' ? EN : lang === 'es' ? ES : PT;
}

/** @example isLang('es') // true */
export function isLang(value: unknown): value is Lang {
  return (LANGS as readonly unknown[]).includes(value);
}

/** What a request says about the language it wants. */
export interface LangRequest {
  /** `?lang=`: pt, es or en. */
  readonly query?: unknown;
  /** The browser's Accept-Language header. */
  readonly acceptLanguage?: string | undefined;
}

/**
 * The language of a checkout page: `?lang=` when it names one the page speaks; otherwise the language
 * the browser prefers most among those (Accept-Language, by quality, `es-MX` matching `es`); otherwise
 * the checkout country's own, Spanish in Mexico (whose methods are OXXO, PAYNET and SPEI) and
 * Portuguese in Brazil. A browser that accepts anything (`*`) gets the country's.
 * @example chooseLang({ acceptLanguage: 'es-MX,es;q=0.9' }, 'BR') // 'es'
 * @example chooseLang({}, 'MX')                                   // 'es'
 * @example chooseLang({ query: 'en', acceptLanguage: 'pt-BR' }, 'BR') // 'en'
 */
export function chooseLang(request: LangRequest, country: string): Lang {
  if (isLang(request.query)) return request.query;
  const home: Lang = country === 'MX' ? 'es' : 'pt';
  if (request.acceptLanguage) {
    const preferred = new Negotiator({ headers: { 'accept-language': request.acceptLanguage } }).language([home, ...LANGS.filter((l) => l !== home)]);
    if (isLang(preferred)) return preferred;
  }
  return home;
}

/**
 * An amount in cents as the page shows it, from the integer (never through a float), in reais or, for
 * Mexican sessions, pesos.
 * @example formatMoney(123456n, 'pt') // 'R$ 1.234,56'
 * @example formatMoney(123456n, 'en') // 'R$1,234.56'
 * @example formatMoney(123456n, 'en', 'MXN') // 'MX$1,234.56'
 * @example formatMoney(123456n, 'es', 'MXN') // 'MX$1,234.56'
 */
export function formatMoney(minor: bigint, lang: Lang, currency = 'BRL'): string {
  const whole = (minor / 100n).toString();
  const cents = (minor % 100n).toString().padStart(2, '0');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, lang === 'pt' ? '.' : ',');
  const symbol = currency === 'MXN' ? 'MX$' : 'R$';
  // Mexico writes amounts as English does ($1,234.56); Brazil as R$ 1.234,56.
  return lang === 'pt' ? `${symbol} ${grouped},${cents}` : `${symbol}${grouped}.${cents}`;
}
