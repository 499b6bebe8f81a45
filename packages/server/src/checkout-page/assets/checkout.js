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

  // The error summary above the pay button (or the method buttons): a title and one line per problem,
  // each a link to its field. Focused when a submit fails, so it is read, and seen, first.
  function showErrors(items, focus) {
    var box = document.getElementById('form-errors');
    if (!box) return;
    box.textContent = '';
    if (!items.length) return;
    var title = document.createElement('h2');
    title.textContent = text('errorSummaryTitle');
    var list = document.createElement('ul');
    items.forEach(function (item) {
      var li = document.createElement('li');
      if (item.field) {
        var link = document.createElement('a');
        link.href = '#' + item.field.id;
        link.textContent = item.message;
        link.addEventListener('click', function (event) {
          event.preventDefault();
          item.field.focus();
        });
        li.appendChild(link);
      } else {
        li.textContent = item.message;
      }
      list.appendChild(li);
    });
    box.appendChild(title);
    box.appendChild(list);
    if (focus) box.focus();
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
            showErrors([{ message: errorText(result.body) }], true);
          }
        })
        .catch(function () {
          button.disabled = false;
          showErrors([{ message: text('submitFailed') }], true);
        });
    });
  });

  boletoPayerForm();

  // Card form: Luhn and scheme as the customer types, and every check before the form is sent.
  var form = document.getElementById('card-form');
  if (!form) return;
  var number = form.elements.namedItem('number');
  var schemeOut = document.getElementById('card-scheme');
  // The vault's brand table (rails/cards cardBrands): [type, name, scheme or null, patterns]. The brand is
  // the one whose pattern is the longest prefix of the number, the earlier brand on a tie, as the vault
  // decides; a brand without a scheme (Hipercard, Maestro…) is recognised and refused.
  var BRANDS = JSON.parse(number.getAttribute('data-brands') || '[]');
  var slot = form.querySelector('.brand-slot');
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
  function brandOf(d) {
    var best = null;
    var bestLength = 0;
    BRANDS.forEach(function (brand) {
      brand[3].forEach(function (pattern) {
        var min = typeof pattern === 'number' ? pattern : pattern[0];
        var max = typeof pattern === 'number' ? pattern : pattern[1];
        var length = String(min).length;
        if (length <= bestLength || d.length < length) return;
        var prefix = Number(d.slice(0, length));
        if (prefix >= min && prefix <= max) {
          best = brand;
          bestLength = length;
        }
      });
    });
    return best && { type: best[0], name: best[1], scheme: best[2] };
  }
  function schemeOf(d) {
    var brand = brandOf(d);
    return brand ? brand.scheme : null;
  }
  function notAccepted(brand) {
    return text('brandNotAccepted').replace('{brand}', brand.name);
  }
  function showNumberState() {
    var d = digits(number.value);
    var brand = brandOf(d);
    var valid = luhn(d);
    var refused = brand && !brand.scheme;
    number.setAttribute('aria-invalid', refused || (d.length >= 12 && !valid) ? 'true' : 'false');
    schemeOut.textContent = refused
      ? notAccepted(brand)
      : (brand ? brand.name : '') + (d.length >= 12 ? (valid ? ' ✓' : ' — ' + text('luhnInvalid')) : '');
    schemeOut.dataset.scheme = (brand && brand.scheme) || '';
    schemeOut.dataset.brand = brand ? brand.type : '';
    schemeOut.dataset.valid = valid ? 'true' : 'false';
    if (slot) {
      slot.querySelectorAll('svg').forEach(function (badge) {
        if (brand && badge.getAttribute('data-brand') === brand.type) badge.removeAttribute('hidden');
        else badge.setAttribute('hidden', '');
      });
    }
  }

  // CPF (11 digits) or CNPJ (14 characters, letters allowed since 2026), check digits as the vault checks them.
  function taxIdValid(value) {
    var v = value.trim().toUpperCase().replace(/[./ -]/g, '');
    if (/^(\d)\1*$/.test(v)) return false;
    if (/^\d{11}$/.test(v)) {
      // Each check digit: the digits before it weighted n+1 down to 2, times 10, mod 11 (10 counts as 0).
      for (var n = 9; n <= 10; n += 1) {
        var sum = 0;
        for (var i = 0; i < n; i += 1) sum += Number(v.charAt(i)) * (n + 1 - i);
        if (((sum * 10) % 11) % 10 !== Number(v.charAt(n))) return false;
      }
      return true;
    }
    if (/^[0-9A-Z]{12}\d{2}$/.test(v)) {
      for (var m = 12; m <= 13; m += 1) {
        var total = 0;
        for (var j = 0; j < m; j += 1) total += (v.charCodeAt(j) - 48) * (((m - 1 - j) % 8) + 2);
        var rest = total % 11;
        if ((rest < 2 ? 0 : 11 - rest) !== Number(v.charAt(m))) return false;
      }
      return true;
    }
    return false;
  }

  // Expiry against the month the server checks with (the merchant clock): refused when the month is not
  // 01–12, the card expired before this month, or the year is more than 20 years ahead.
  function expiryProblem(month, year) {
    if (month < 1 || month > 12) return text('expiryMonthInvalid');
    var now = /^(\d{4})-(\d{2})$/.exec(form.dataset.currentMonth || '');
    if (!now) return null;
    var thisYear = Number(now[1]);
    if (year < thisYear || (year === thisYear && month < Number(now[2]))) return text('cardExpired');
    if (year > thisYear + 20) return text('expiryInvalid');
    return null;
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

  // The pay button says what the chosen installments cost in all.
  var installments = form.elements.namedItem('installments');
  if (installments) {
    installments.addEventListener('change', function () {
      var chosen = installments.options[installments.selectedIndex];
      var submit = form.querySelector('button[type=submit]');
      if (chosen && submit && chosen.getAttribute('data-pay-label')) submit.textContent = chosen.getAttribute('data-pay-label');
    });
  }

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
    // Every problem at once, in the order of the fields, each a link in the error summary.
    var problems = [];
    var bad = function (input, message) {
      input.setAttribute('aria-invalid', 'true');
      problems.push({ field: input, message: message });
    };
    var debit = form.dataset.cardMethod === 'DEBITCARD';
    var names = ['name', 'email', 'tax_id'].concat(debit ? ['phone'] : [], ['number', 'expiry', 'cvv', 'holder_name']);
    names.forEach(function (name) {
      field(name).setAttribute('aria-invalid', 'false');
    });
    var empty = function (name) {
      if (field(name).value.trim() !== '') return false;
      var label = form.querySelector('label[for="' + name + '"]');
      bad(field(name), text('fieldRequired').replace('{field}', label ? label.textContent : name));
      return true;
    };
    var d = digits(number.value);
    var expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(field('expiry').value);
    var month = expiry ? Number(expiry[1]) : 0;
    var cvv = field('cvv').value.trim();
    var phone = debit ? digits(field('phone').value) : '';
    if (phone.length === 12 || phone.length === 13) phone = phone.indexOf('55') === 0 ? phone.slice(2) : phone;
    names.forEach(function (name) {
      if (empty(name)) return;
      if (name === 'tax_id' && !taxIdValid(field(name).value)) bad(field(name), text('taxIdInvalid'));
      if (name === 'phone' && phone.length !== 10 && phone.length !== 11) bad(field(name), text('phoneInvalid'));
      if (name === 'number') {
        var brand = brandOf(d);
        if (brand && !brand.scheme) bad(number, notAccepted(brand));
        else if (!luhn(d) || !schemeOf(d)) bad(number, text('luhnInvalid'));
      }
      if (name === 'expiry') {
        var problem = expiry ? expiryProblem(month, Number(expiry[2].length === 2 ? '20' + expiry[2] : expiry[2])) : text('expiryInvalid');
        if (problem) bad(field(name), problem);
      }
      if (name === 'cvv' && !/^\d{3,4}$/.test(cvv)) bad(field(name), text('cvvInvalid'));
    });
    if (problems.length > 0) {
      showErrors(problems, true);
      return;
    }
    var year = expiry[2].length === 2 ? '20' + expiry[2] : expiry[2];
    var submit = form.querySelector('button[type=submit]');
    submit.disabled = true;
    showErrors([], false);
    announce('form-status', text('processing'));
    var fail = function (body) {
      submit.disabled = false;
      announce('form-status', '');
      showErrors([{ message: body ? errorText(body) : text('submitFailed') }], true);
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
