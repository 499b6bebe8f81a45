/* global document, window, navigator, fetch, setInterval, clearInterval */
// The hosted checkout page's only script (served from our origin with an SRI hash; the page's
// Content-Security-Policy allows nothing else). It keeps the page live: the countdown, the status
// poll that redraws the page when the session moves and follows the merchant's redirect, the copy
// button, the method buttons, and the card form's checks before anything is sent.
(function () {
  'use strict';
  var body = document.body;
  var data = body.dataset;

  function text(key) {
    var el = document.getElementById('i18n');
    return (el && el.dataset[key]) || key;
  }

  function announce(id, message) {
    var el = document.getElementById(id);
    if (el) el.textContent = message;
  }

  // Status: poll the session's public status and redraw when it changed. A final page follows the
  // merchant's URL after a moment, so the customer sees the outcome first.
  if (data.redirect) {
    window.setTimeout(function () {
      window.location.assign(data.redirect);
    }, 1500);
  }
  var polling = false;
  // While the debit card's 3DS challenge is open in this page, the session shows an attempt starting;
  // redrawing the page then would take the challenge away from the customer.
  var authenticating = false;
  function poll() {
    if (polling || authenticating || !data.statusUrl) return;
    polling = true;
    fetch(data.statusUrl, { cache: 'no-store', headers: { accept: 'application/json' } })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (status) {
        polling = false;
        if (status && status.version !== data.version) window.location.reload();
      })
      .catch(function () {
        polling = false;
      });
  }
  if (data.statusUrl && !data.redirect) setInterval(poll, 1500);

  // Countdown to expiry, from the seconds the server computed on the merchant's clock.
  var countdown = document.querySelector('[data-seconds-left]');
  if (countdown) {
    var left = Number(countdown.getAttribute('data-seconds-left'));
    var pad = function (n) {
      return (n < 10 ? '0' : '') + n;
    };
    var draw = function () {
      var s = Math.max(0, left);
      var h = Math.floor(s / 3600);
      var m = Math.floor((s % 3600) / 60);
      countdown.textContent = (h > 0 ? h + ':' + pad(m) : String(m)) + ':' + pad(s % 60);
    };
    draw();
    var timer = setInterval(function () {
      left -= 1;
      draw();
      if (left <= 0) {
        clearInterval(timer);
        poll();
      }
    }, 1000);
  }

  // Copy the BR Code; the field stays selectable for browsers without the clipboard API.
  document.querySelectorAll('[data-copy-target]').forEach(function (button) {
    button.addEventListener('click', function () {
      var field = document.getElementById(button.getAttribute('data-copy-target'));
      if (!field) return;
      var done = function () {
        announce('copy-status', text('copied'));
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(field.value).then(done, function () {
          field.select();
          document.execCommand('copy');
          done();
        });
      } else {
        field.select();
        document.execCommand('copy');
        done();
      }
    });
  });

  document.querySelectorAll('[data-print]').forEach(function (button) {
    button.addEventListener('click', function () {
      window.print();
    });
  });

  function postJson(url, payload) {
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(payload),
    }).then(function (response) {
      return response.json().then(function (json) {
        return { ok: response.ok, body: json };
      });
    });
  }

  function errorText(body) {
    if (body && body.errors && body.errors.length) {
      return body.errors
        .map(function (e) {
          return e.description;
        })
        .join(' ');
    }
    return text('submitFailed');
  }

  // Method selection: PIX and boleto start their attempt here; the card link is a plain link.
  document.querySelectorAll('[data-start-method]').forEach(function (button) {
    button.addEventListener('click', function () {
      button.disabled = true;
      postJson(data.attemptsUrl, { method: button.getAttribute('data-start-method') })
        .then(function (result) {
          if (result.ok) window.location.assign(data.pageUrl);
          else {
            button.disabled = false;
            announce('form-errors', errorText(result.body));
          }
        })
        .catch(function () {
          button.disabled = false;
          announce('form-errors', text('submitFailed'));
        });
    });
  });

  boletoPayerForm();

  // Card form: Luhn and scheme as the customer types, and every check before the form is sent.
  var form = document.getElementById('card-form');
  if (!form) return;
  var number = form.elements.namedItem('number');
  var schemeOut = document.getElementById('card-scheme');
  var SCHEMES = [
    ['ELO', /^(401178|401179|431274|438935|451416|457393|457631|457632|504175|506699|5067|509|627780|636297|636368|650031|650032|650033|650035|650051|650405|650439|650485|650538|650541|650598|650700|650720|650727|650901|650920|651652|655000|655021)/],
    ['VISA', /^4/],
    ['MASTER', /^(5[1-5]|2(2[2-9][1-9]|2[3-9]|[3-6]|7[01]|720))/],
    ['AMERICAN_EXPRESS', /^3[47]/],
    ['DINERS_CLUB', /^3(0[0-5]|[689])/],
    ['DISCOVER', /^(6011|65|64[4-9])/],
    ['JCB', /^35/],
  ];
  var NAMES = { ELO: 'Elo', VISA: 'Visa', MASTER: 'Mastercard', AMERICAN_EXPRESS: 'American Express', DINERS_CLUB: 'Diners Club', DISCOVER: 'Discover', JCB: 'JCB' };

  function digits(value) {
    return value.replace(/\D/g, '');
  }
  function luhn(d) {
    if (d.length < 12 || d.length > 19) return false;
    var sum = 0;
    for (var i = 0; i < d.length; i += 1) {
      var n = Number(d.charAt(d.length - 1 - i));
      if (i % 2 === 1) {
        n *= 2;
        if (n > 9) n -= 9;
      }
      sum += n;
    }
    return sum % 10 === 0;
  }
  function schemeOf(d) {
    for (var i = 0; i < SCHEMES.length; i += 1) if (SCHEMES[i][1].test(d)) return SCHEMES[i][0];
    return null;
  }
  function showNumberState() {
    var d = digits(number.value);
    var scheme = schemeOf(d);
    var valid = luhn(d);
    number.setAttribute('aria-invalid', d.length >= 12 && !valid ? 'true' : 'false');
    schemeOut.textContent = (scheme ? NAMES[scheme] : '') + (d.length >= 12 ? (valid ? ' ✓' : ' — ' + text('luhnInvalid')) : '');
    schemeOut.dataset.scheme = scheme || '';
    schemeOut.dataset.valid = valid ? 'true' : 'false';
  }
  // Expiry: digits only, the "/" is written for the customer (numeric keypads have none). A first digit
  // above 1 can only be a month 02–09; deleting the "/" is respected rather than undone at once.
  var expiryField = form.elements.namedItem('expiry');
  expiryField.addEventListener('input', function (event) {
    var deleting = event.inputType && event.inputType.indexOf('delete') === 0;
    var raw = expiryField.value;
    if (deleting && /^\d{0,2}\/?\d{0,4}$/.test(raw)) return;
    var d = digits(raw).slice(0, 6);
    if (/^\d\/$/.test(raw.trim())) d = '0' + d;
    if (d.length === 1 && Number(d) > 1) d = '0' + d;
    var formatted = d.length < 2 ? d : d.length === 2 ? (deleting ? d : d + '/') : d.slice(0, 2) + '/' + d.slice(2);
    if (formatted !== raw) expiryField.value = formatted;
  });

  number.addEventListener('input', function () {
    var d = digits(number.value).slice(0, 19);
    var grouped = d.replace(/(\d{4})(?=\d)/g, '$1 ');
    if (grouped !== number.value) number.value = grouped;
    showNumberState();
  });

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var field = function (name) {
      return form.elements.namedItem(name);
    };
    var problems = [];
    var firstBad = null;
    var bad = function (input, message) {
      input.setAttribute('aria-invalid', 'true');
      problems.push(message);
      if (!firstBad) firstBad = input;
    };
    ['name', 'email', 'tax_id', 'number', 'expiry', 'cvv', 'holder_name'].forEach(function (name) {
      field(name).setAttribute('aria-invalid', 'false');
    });
    ['name', 'email', 'tax_id', 'holder_name'].forEach(function (name) {
      if (field(name).value.trim() === '') bad(field(name), text('required'));
    });
    var d = digits(number.value);
    if (!luhn(d) || !schemeOf(d)) bad(number, text('luhnInvalid'));
    var expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(field('expiry').value);
    var month = expiry ? Number(expiry[1]) : 0;
    if (!expiry || month < 1 || month > 12) bad(field('expiry'), text('expiryInvalid'));
    var cvv = field('cvv').value.trim();
    if (!/^\d{3,4}$/.test(cvv)) bad(field('cvv'), text('cvvInvalid'));
    var debit = form.dataset.cardMethod === 'DEBITCARD';
    var phone = debit ? digits(field('phone').value) : '';
    if (debit) {
      field('phone').setAttribute('aria-invalid', 'false');
      if (phone.length === 12 || phone.length === 13) phone = phone.indexOf('55') === 0 ? phone.slice(2) : phone;
      if (phone.length !== 10 && phone.length !== 11) bad(field('phone'), text('phoneInvalid'));
    }
    if (problems.length > 0) {
      announce('form-errors', problems.filter(function (p, i) { return problems.indexOf(p) === i; }).join(' '));
      firstBad.focus();
      return;
    }
    var year = expiry[2].length === 2 ? '20' + expiry[2] : expiry[2];
    var submit = form.querySelector('button[type=submit]');
    submit.disabled = true;
    announce('form-errors', '');
    announce('form-status', text('processing'));
    var fail = function (body) {
      submit.disabled = false;
      announce('form-status', '');
      announce('form-errors', body ? errorText(body) : text('submitFailed'));
    };
    if (debit) {
      payByDebit(
        {
          name: field('name').value.trim(),
          email: field('email').value.trim(),
          tax_id: field('tax_id').value.trim(),
          phone: phone,
          number: d,
          exp_month: String(month),
          exp_year: year,
          cvv: cvv,
          holder_name: field('holder_name').value.trim(),
          lang: data.lang === 'en' || data.lang === 'es' ? data.lang : 'pt',
        },
        fail,
      );
      return;
    }
    postJson(data.cardUrl, {
      name: field('name').value.trim(),
      email: field('email').value.trim(),
      tax_id: field('tax_id').value.trim(),
      number: d,
      exp_month: String(month),
      exp_year: year,
      cvv: cvv,
      holder_name: field('holder_name').value.trim(),
      installments: Number(field('installments').value),
    })
      .then(function (result) {
        if (result.ok) window.location.assign(data.pageUrl);
        else fail(result.body);
      })
      .catch(function () {
        fail(null);
      });
  });

  // Debit: 3DS first. A frictionless card pays at once; otherwise the issuer's challenge opens in a
  // frame inside this page, and its answer (posted to this page's origin only) completes the payment.
  function payByDebit(payload, fail) {
    authenticating = true;
    var failed = function (body) {
      authenticating = false;
      fail(body);
    };
    postJson(data.debitUrl, payload)
      .then(function (result) {
        if (!result.ok) return failed(result.body);
        if (result.body.status !== 'CHALLENGE') return window.location.assign(data.pageUrl);
        announce('form-status', text('authenticating'));
        var holder = document.getElementById('three-ds-frame');
        var frame = document.createElement('iframe');
        frame.src = result.body.challenge_url;
        frame.title = text('authenticating');
        holder.appendChild(frame);
        holder.hidden = false;
        var onMessage = function (event) {
          if (event.origin !== window.location.origin || event.source !== frame.contentWindow) return;
          if (!event.data || event.data.type !== 'colibri:3ds-challenge') return;
          window.removeEventListener('message', onMessage);
          postJson(data.debitUrl + '/complete', {})
            .then(function (done) {
              holder.hidden = true;
              holder.textContent = '';
              if (done.ok) window.location.assign(data.pageUrl);
              else failed(done.body && done.body.errors ? done.body : { errors: [{ description: text('authFailed') }] });
            })
            .catch(function () {
              failed(null);
            });
        };
        window.addEventListener('message', onMessage);
      })
      .catch(function () {
        failed(null);
      });
  }

  // Boleto payer form (boleto-payer-form.ts): the bank registers the boleto with the payer's name, CPF or
  // CNPJ and address. The CPF's or CNPJ's check digits and the CEP are checked here before anything is
  // sent (and again by the server); the boleto attempt then starts with the payer.
  function boletoPayerForm() {
    var payerForm = document.getElementById('boleto-payer-form');
    if (!payerForm) return;
    var checkDigit = function (chars, weights) {
      var sum = 0;
      for (var i = 0; i < weights.length; i += 1) sum += (chars.charCodeAt(i) - 48) * weights[i];
      var rest = sum % 11;
      return String(rest < 2 ? 0 : 11 - rest);
    };
    var taxIdValid = function (raw) {
      var v = raw.replace(/[./\s-]/g, '').toUpperCase();
      if (/^(.)\1*$/.test(v)) return false;
      if (/^\d{11}$/.test(v)) {
        return checkDigit(v, [10, 9, 8, 7, 6, 5, 4, 3, 2]) === v.charAt(9) && checkDigit(v, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]) === v.charAt(10);
      }
      if (/^[0-9A-Z]{12}\d{2}$/.test(v)) {
        return checkDigit(v, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]) === v.charAt(12) && checkDigit(v, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]) === v.charAt(13);
      }
      return false;
    };
    var names = ['name', 'tax_id', 'postal_code', 'street', 'number', 'complement', 'district', 'city', 'state'];
    payerForm.addEventListener('submit', function (event) {
      event.preventDefault();
      var field = function (name) {
        return payerForm.elements.namedItem(name);
      };
      var problems = [];
      var firstBad = null;
      var bad = function (input, message) {
        input.setAttribute('aria-invalid', 'true');
        if (problems.indexOf(message) < 0) problems.push(message);
        if (!firstBad) firstBad = input;
      };
      names.forEach(function (name) {
        field(name).setAttribute('aria-invalid', 'false');
        if (name !== 'complement' && field(name).value.trim() === '') bad(field(name), text('required'));
      });
      if (field('tax_id').value.trim() !== '' && !taxIdValid(field('tax_id').value)) bad(field('tax_id'), payerForm.dataset.taxIdInvalid);
      var cep = field('postal_code').value.replace(/[.\s-]/g, '');
      if (cep !== '' && !/^\d{8}$/.test(cep)) bad(field('postal_code'), payerForm.dataset.postalCodeInvalid);
      if (problems.length > 0) {
        announce('form-errors', problems.join(' '));
        firstBad.focus();
        return;
      }
      var payer = {};
      names.forEach(function (name) {
        var value = field(name).value.trim();
        if (name !== 'complement' || value !== '') payer[name] = value;
      });
      var submit = payerForm.querySelector('button[type=submit]');
      submit.disabled = true;
      announce('form-errors', '');
      announce('form-status', text('processing'));
      postJson(data.attemptsUrl, { method: 'BOLETO', payer: payer })
        .then(function (result) {
          if (result.ok) return window.location.assign(data.pageUrl);
          submit.disabled = false;
          announce('form-status', '');
          announce('form-errors', errorText(result.body));
        })
        .catch(function () {
          submit.disabled = false;
          announce('form-status', '');
          announce('form-errors', text('submitFailed'));
        });
    });
  }
})();
