/**
 * The page's words, in Portuguese (the default: the methods are Brazilian and so are most payers) and
 * English (`?lang=en`). Every string the page or its script shows is here, so a translation is one
 * table.
 */
export type Lang = 'pt' | 'en';

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
  pixInstructions: 'Abra o app do seu banco, escolha pagar com PIX e leia o QR code ou cole o código abaixo.',
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
  pay: 'Pagar',
  luhnInvalid: 'Número de cartão inválido: confira os dígitos.',
  expiryInvalid: 'Validade inválida: use MM/AA.',
  cvvInvalid: 'CVV inválido.',
  required: 'Preencha todos os campos.',
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
  language: 'English',
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
  pixInstructions: "Open your bank's app, choose to pay with PIX and scan the QR code or paste the code below.",
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
  pay: 'Pay',
  luhnInvalid: 'Invalid card number: check the digits.',
  expiryInvalid: 'Invalid expiry: use MM/YY.',
  cvvInvalid: 'Invalid CVV.',
  required: 'Fill in every field.',
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
  language: 'Português',
};

/** @example messages('en').pay // 'Pay' */
export function messages(lang: Lang): Messages {
  return lang === 'en' ? EN : PT;
}

/** `?lang=en` selects English; anything else is Portuguese. @example langOf('en') // 'en' */
export function langOf(query: unknown): Lang {
  return query === 'en' ? 'en' : 'pt';
}

/**
 * An amount in cents as the page shows it, from the integer (never through a float), in reais or, for
 * Mexican sessions, pesos.
 * @example formatMoney(123456n, 'pt') // 'R$ 1.234,56'
 * @example formatMoney(123456n, 'en') // 'R$1,234.56'
 * @example formatMoney(123456n, 'en', 'MXN') // 'MX$1,234.56'
 */
export function formatMoney(minor: bigint, lang: Lang, currency = 'BRL'): string {
  const whole = (minor / 100n).toString();
  const cents = (minor % 100n).toString().padStart(2, '0');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, lang === 'en' ? ',' : '.');
  const symbol = currency === 'MXN' ? 'MX$' : 'R$';
  return lang === 'en' ? `${symbol}${grouped}.${cents}` : `${symbol} ${grouped},${cents}`;
}
