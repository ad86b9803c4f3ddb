// The signing page: shows the document's pages with this recipient's fields over them, lets the
// recipient fill each field (mouse, finger or keyboard), then complete or reject. Every value is
// checked again by the server; this script only helps. A document that asks for recipient
// authentication needs the recipient's account (a banner says how), and finishing then carries
// a proof: a code from an authenticator app or a passkey (`state.auth`).
'use strict';

(function () {
  const root = document.getElementById('signing');
  if (!root) return;
  const token = root.dataset.token;
  const base = '/sign/' + encodeURIComponent(token);
  let state = null;

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v;
      // Styles through the CSSOM: the page's CSP allows no inline style attributes.
      else if (k === 'style') Object.assign(e.style, v);
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat()) {
      if (c !== null && c !== undefined) e.append(c.nodeType ? c : String(c));
    }
    return e;
  }

  let drawnVersion = Date.now();

  async function call(path, body) {
    const resp = await fetch(base + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
    let data = null;
    try { data = await resp.json(); } catch (_) { data = null; }
    if (!resp.ok) {
      const err = new Error((data && data.message) || ('The server answered ' + resp.status));
      err.status = resp.status;
      throw err;
    }
    return data;
  }

  function say(text, kind) {
    const line = document.getElementById('signing-status');
    if (!line) return;
    line.textContent = text;
    line.className = kind === 'error' ? 'notice error' : 'muted';
  }

  const ACTION = { SIGNER: 'Finish and sign', APPROVER: 'Approve', VIEWER: 'Mark as viewed', ASSISTANT: 'Finish preparing' };

  // A field an assistant fills in for a later recipient names them.
  function fieldLabel(f) {
    const own = ownLabel(f);
    const other = f.forRecipient;
    return other ? own + ' (for ' + (other.name || other.email) + ')' : own;
  }

  function ownLabel(f) {
    const meta = f.fieldMeta || {};
    if (meta.label) return meta.label;
    return {
      SIGNATURE: 'Sign here', FREE_SIGNATURE: 'Sign here', INITIALS: 'Initials', NAME: 'Name',
      EMAIL: 'E-mail', DATE: 'Date (filled when you finish)', TEXT: 'Text', NUMBER: 'Number',
      RADIO: 'Choose one', CHECKBOX: 'Tick', SELECT: 'Choose', DROPDOWN: 'Choose',
    }[f.type] || f.type;
  }

  function isRequired(f) {
    if (f.type === 'DATE' || f.forRecipient) return false;
    if (['SIGNATURE', 'FREE_SIGNATURE'].includes(f.type)) return true;
    return !!(f.fieldMeta && f.fieldMeta.required);
  }

  // What a field's box shows: the drawn signature as its image, a typed one in script style.
  function fieldContent(f) {
    if (f.drawn) {
      return el('img', { class: 'sign-image', alt: fieldLabel(f) + ': your signature',
        src: base + '/fields/' + f.id + '/signature.png?v=' + drawnVersion });
    }
    if (['SIGNATURE', 'FREE_SIGNATURE', 'INITIALS'].includes(f.type) && f.value) {
      return el('span', { class: 'sign-typed' }, f.value);
    }
    return fieldText(f);
  }

  // A field button's accessible name: what it shows (a value, or its label), then its label
  // where the value does not say it, and whether it is filled or required.
  function fieldName(f) {
    if (f.drawn) return fieldLabel(f) + ' (filled)';
    const typed = ['SIGNATURE', 'FREE_SIGNATURE', 'INITIALS'].includes(f.type) && f.value;
    const shown = typed ? f.value : fieldText(f);
    const label = fieldLabel(f);
    let name = shown.includes(label) ? shown : shown + ', ' + label;
    if (f.inserted) name += ' (filled)';
    else if (isRequired(f)) name += ' (required)';
    return name;
  }

  function fieldText(f) {
    if (f.type === 'DATE') return f.value || fieldLabel(f);
    if (f.value) {
      if (f.type === 'CHECKBOX') {
        try { return JSON.parse(f.value).join(', ') || fieldLabel(f); } catch (_) { return f.value; }
      }
      return f.value;
    }
    return fieldLabel(f) + (isRequired(f) ? ' *' : '');
  }

  const here = () => '/sign/' + encodeURIComponent(token);

  // What the recipient must do before acting: sign in, or enrol the factor the document asks for.
  function authBanner() {
    const a = state.auth || {};
    const me = state.recipient;
    if (!a.actionAuth && !a.accessAuth) return null;
    const box = el('div', { class: 'alert', id: 'auth-banner', role: 'status' });
    if (!a.accountReady) {
      const login = '/auth/login?next=' + encodeURIComponent(here()) + '&email=' + encodeURIComponent(me.email);
      box.append(el('p', {}, a.signedInAs
        ? 'You are signed in as ' + a.signedInAs + ', but this document is for ' + me.email + '.'
        : 'This document asks you to sign in to your Docket account for ' + me.email + ' before you act on it.'));
      box.append(el('p', {}, el('a', { class: 'button primary', id: 'sign-in', href: login }, 'Sign in as ' + me.email)));
      if (a.inviteCsrf) {
        box.append(el('form', { method: 'post', action: here() + '/account' },
          el('input', { type: 'hidden', name: 'csrf_token', value: a.inviteCsrf }),
          el('p', {}, 'No account yet? ',
            el('button', { type: 'submit', class: 'button', id: 'create-account' }, 'Create one'),
            ' (we e-mail you a link)')));
      }
      return box;
    }
    const enrolled = a.enrolled || {};
    const account = '/account?next=' + encodeURIComponent(here());
    if (a.actionAuth === 'TWO_FACTOR_AUTH' && !enrolled.totp) {
      box.append(el('p', {}, 'To finish, this document asks for a code from an authenticator app. ',
        el('a', { href: account, id: 'enrol' }, 'Set one up on your account page'), ', then come back.'));
    } else if (a.actionAuth === 'PASSKEY' && !enrolled.passkeys) {
      box.append(el('p', {}, 'To finish, this document asks for a passkey. ',
        el('a', { href: account, id: 'enrol' }, 'Add one on your account page'), ', then come back.'));
    } else if (a.actionAuth === 'TWO_FACTOR_AUTH') {
      box.append(el('p', {}, 'Signed in as ' + a.signedInAs + '. To finish you will be asked for a code from your authenticator app.'));
    } else if (a.actionAuth === 'PASSKEY') {
      box.append(el('p', {}, 'Signed in as ' + a.signedInAs + '. To finish you will confirm with your passkey.'));
    } else if (a.actionAuth === 'PASSWORD') {
      box.append(el('p', {}, 'Signed in as ' + a.signedInAs + '. To finish you will enter your Docket account password again.'));
    } else {
      box.append(el('p', {}, 'Signed in as ' + a.signedInAs + '.'));
    }
    return box;
  }

  function canAct() {
    const a = state.auth || {};
    return a.accountReady !== false;
  }

  function render() {
    const d = state.document;
    root.replaceChildren();
    root.append(el('h1', {}, d.title));
    root.append(el('p', { class: 'muted' }, 'From ' + d.senderName + ' <' + d.senderEmail + '>'));
    const banner = authBanner();
    if (banner) root.append(banner);
    const status = el('p', { id: 'signing-status', class: 'muted', role: 'status' });
    root.append(status);
    const me = state.recipient;
    const done = me.signingStatus !== 'NOT_SIGNED';
    if (me.role === 'CC') status.textContent = 'You receive a copy of this document once everyone has signed.';
    else if (done) status.textContent = 'You have finished. Thank you.';
    else if (!state.yourTurn) status.textContent = 'It is not your turn yet: you will get an e-mail when it is.';
    else if (me.role === 'ASSISTANT') status.textContent = 'Fill in what you can for the recipients after you, then press “' + ACTION[me.role] + '”.';
    else status.textContent = state.fields.length
      ? 'Fill in the highlighted fields, then press “' + ACTION[me.role] + '”.'
      : 'Read the document, then press “' + ACTION[me.role] + '”.';

    const pages = el('div', { class: 'sign-pages' });
    d.pages.forEach((size, i) => {
      const n = i + 1;
      const pageBox = el('div', {
        class: 'sign-page', style: { aspectRatio: size[0] + ' / ' + size[1] },
        'aria-label': 'Page ' + n + ' of ' + d.pages.length, role: 'group',
      });
      pageBox.append(el('img', {
        src: base + '/pages/' + n + '.png?w=1200', alt: 'Page ' + n, loading: i < 2 ? 'eager' : 'lazy', 'data-retry': true,
        width: 1200, height: Math.round(1200 * size[1] / size[0]),
      }));
      for (const f of state.fields.filter((x) => x.page === n)) {
        const active = state.yourTurn && !done && canAct() && f.type !== 'DATE' && !(f.fieldMeta && f.fieldMeta.readOnly);
        const b = el('button', {
          type: 'button', class: 'sign-field' + (f.inserted ? ' filled' : '') + (isRequired(f) ? ' required' : ''),
          style: { left: f.positionX + '%', top: f.positionY + '%', width: f.width + '%', height: f.height + '%' },
          'data-field-id': f.id, 'data-type': f.type, disabled: !active,
          'aria-label': fieldName(f),
          onclick: () => edit(f),
        }, fieldContent(f));
        pageBox.append(b);
      }
      pages.append(pageBox);
    });
    root.append(pages);

    if (state.yourTurn && !done && me.role !== 'CC' && canAct()) {
      const missing = state.fields.filter((f) => isRequired(f) && !f.inserted).length;
      const finish = el('button', {
        type: 'button', class: 'button primary', id: 'complete', disabled: missing > 0,
        onclick: complete,
      }, ACTION[me.role]);
      const reject = el('button', { type: 'button', class: 'button', id: 'reject', onclick: rejectDialog }, 'Reject…');
      const bar = el('div', { class: 'sign-actions' }, finish, reject,
        missing > 0 ? el('span', { class: 'muted' }, missing + ' required field' + (missing > 1 ? 's' : '') + ' left') : null);
      root.append(bar);
    }
  }

  // A modal dialog with a form; `build` adds the inputs and returns a function giving the value.
  function dialog(title, build, onSubmit, okLabel) {
    const d = el('dialog', { class: 'sign-dialog', 'aria-label': title });
    const form = el('form', { method: 'dialog', class: 'stack' });
    const error = el('p', { class: 'notice error', role: 'alert', hidden: true });
    form.append(el('h2', {}, title));
    const value = build(form);
    form.append(error);
    const ok = el('button', { type: 'submit', class: 'button primary' }, okLabel || 'Save');
    const cancel = el('button', { type: 'button', class: 'button', onclick: () => d.close() }, 'Cancel');
    form.append(el('div', { class: 'sign-actions' }, ok, cancel));
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      error.hidden = true;
      try {
        await onSubmit(value());
        d.close();
      } catch (e) {
        error.textContent = e.message;
        error.hidden = false;
      }
    });
    d.addEventListener('close', () => d.remove());
    d.append(form);
    document.body.append(d);
    d.showModal();
    const first = form.querySelector('input, textarea, select, canvas');
    if (first) first.focus();
  }

  async function save(f, body) {
    await call('/fields/' + f.id, body);
    drawnVersion = Date.now();
    await reload();
  }

  function options(f) {
    return ((f.fieldMeta && f.fieldMeta.values) || []).map((v) => v.value);
  }

  function edit(f) {
    const meta = f.fieldMeta || {};
    const me = state.recipient;
    switch (f.type) {
      case 'SIGNATURE': case 'FREE_SIGNATURE': case 'INITIALS':
        return signatureDialog(f);
      case 'NAME': case 'EMAIL': case 'TEXT': {
        const who = f.forRecipient || me;
        const initial = f.value || (f.type === 'NAME' ? who.name : f.type === 'EMAIL' ? who.email : (meta.text || ''));
        return dialog(fieldLabel(f), (form) => {
          const attrs = { id: 'field-input', name: 'value', value: initial, required: true,
            type: f.type === 'EMAIL' ? 'email' : 'text', autocomplete: f.type === 'NAME' ? 'name' : f.type === 'EMAIL' ? 'email' : 'off',
            maxlength: meta.characterLimit || null, placeholder: meta.placeholder || null };
          const input = el('input', attrs);
          form.append(el('label', { for: 'field-input' }, fieldLabel(f)), input);
          return () => ({ value: input.value });
        }, (v) => save(f, v));
      }
      case 'NUMBER':
        return dialog(fieldLabel(f), (form) => {
          const input = el('input', { id: 'field-input', type: 'number', step: 'any', required: true,
            min: meta.minValue ?? null, max: meta.maxValue ?? null, value: f.value || (meta.value ?? '') });
          form.append(el('label', { for: 'field-input' }, fieldLabel(f)), input);
          return () => ({ value: input.value });
        }, (v) => save(f, v));
      case 'SELECT':
      case 'DROPDOWN':
        return dialog(fieldLabel(f), (form) => {
          const select = el('select', { id: 'field-input', required: true },
            el('option', { value: '' }, 'Choose…'),
            options(f).map((o) => el('option', { value: o, selected: (f.value || meta.defaultValue) === o }, o)));
          form.append(el('label', { for: 'field-input' }, fieldLabel(f)), select);
          return () => ({ value: select.value });
        }, (v) => save(f, v));
      case 'RADIO':
        return dialog(fieldLabel(f), (form) => {
          const set = el('fieldset', {}, el('legend', {}, fieldLabel(f)));
          options(f).forEach((o, i) => {
            const id = 'opt-' + i;
            set.append(el('div', {}, el('input', { type: 'radio', name: 'choice', id, value: o, required: true, checked: f.value === o }),
              el('label', { for: id }, o)));
          });
          form.append(set);
          return () => {
            const c = form.querySelector('input[name=choice]:checked');
            return { value: c ? c.value : '' };
          };
        }, (v) => save(f, v));
      case 'CHECKBOX': {
        let current = [];
        try { current = f.value ? JSON.parse(f.value) : []; } catch (_) { current = []; }
        return dialog(fieldLabel(f), (form) => {
          const set = el('fieldset', {}, el('legend', {}, fieldLabel(f)));
          options(f).forEach((o, i) => {
            const id = 'box-' + i;
            set.append(el('div', {}, el('input', { type: 'checkbox', name: 'box', id, value: o, checked: current.includes(o) }),
              el('label', { for: id }, o)));
          });
          form.append(set);
          return () => ({ value: [...form.querySelectorAll('input[name=box]:checked')].map((c) => c.value) });
        }, (v) => save(f, v));
      }
      default:
        return undefined;
    }
  }

  // Draw with a pointer (mouse, pen, finger) or type the name; the keyboard reaches both.
  function signatureDialog(f) {
    dialog(fieldLabel(f), (form) => {
      const canvas = el('canvas', { class: 'sign-pad', width: 600, height: 200, tabindex: 0,
        'aria-label': 'Signature pad: draw with the mouse or a finger, or use the typed signature below' });
      const ctx = canvas.getContext('2d');
      ctx.lineWidth = 3; ctx.lineCap = 'round'; ctx.lineJoin = 'round'; ctx.strokeStyle = '#10131a';
      let drawing = false; let drawn = false;
      const point = (ev) => {
        const r = canvas.getBoundingClientRect();
        return [(ev.clientX - r.left) * canvas.width / r.width, (ev.clientY - r.top) * canvas.height / r.height];
      };
      canvas.addEventListener('pointerdown', (ev) => {
        drawing = true; canvas.setPointerCapture(ev.pointerId);
        const [x, y] = point(ev); ctx.beginPath(); ctx.moveTo(x, y); ev.preventDefault();
      });
      canvas.addEventListener('pointermove', (ev) => {
        if (!drawing) return;
        const [x, y] = point(ev); ctx.lineTo(x, y); ctx.stroke(); drawn = true; ev.preventDefault();
      });
      const stop = () => { drawing = false; };
      canvas.addEventListener('pointerup', stop);
      canvas.addEventListener('pointercancel', stop);
      const clear = el('button', { type: 'button', class: 'button', onclick: () => {
        ctx.clearRect(0, 0, canvas.width, canvas.height); drawn = false;
      } }, 'Clear');
      const typed = el('input', { id: 'typed-signature', type: 'text', maxlength: 100, autocomplete: 'name',
        placeholder: f.type === 'INITIALS' ? 'Your initials' : state.recipient.name });
      form.append(canvas, clear, el('label', { for: 'typed-signature' }, 'Or type it'), typed);
      return () => {
        if (typed.value.trim()) return { typed: typed.value.trim() };
        if (drawn) return { signature: canvas.toDataURL('image/png') };
        throw new Error('Draw or type your signature first.');
      };
    }, (v) => save(f, v));
  }

  function rejectDialog() {
    dialog('Reject this document', (form) => {
      const reason = el('textarea', { id: 'reject-reason', required: true, maxlength: 500, rows: 4 });
      form.append(el('label', { for: 'reject-reason' }, 'Why are you rejecting it? The sender will see this.'), reason);
      return () => ({ reason: reason.value });
    }, async (v) => {
      await withProof('Reject', async (auth) => {
        await call('/reject', auth ? { ...v, auth } : v);
        finished('You rejected this document. The sender has been told.');
      });
    }, 'Reject');
  }

  // Runs `act(auth)` with the proof the document asks for: none, a TOTP code or the account
  // password (asked for in a dialog), or a passkey assertion (the browser asks).
  async function withProof(label, act) {
    const kind = (state.auth || {}).actionAuth;
    if (kind === 'TWO_FACTOR_AUTH') {
      // The dialog stays open with the server's answer when a code is wrong.
      dialog('Code from your authenticator app', (form) => {
        const input = el('input', { id: 'totp-code', name: 'code', inputmode: 'numeric',
          autocomplete: 'one-time-code', maxlength: 7, required: true });
        form.append(el('label', { for: 'totp-code' }, 'Enter the six-digit code your app shows now.'), input);
        return () => input.value;
      }, (code) => act({ method: 'TWO_FACTOR_AUTH', code }), label);
      return;
    }
    if (kind === 'PASSWORD') {
      // As for codes, the dialog stays open with the server's answer when it is wrong.
      dialog('Your Docket account password', (form) => {
        const input = el('input', { id: 'account-password', name: 'password', type: 'password',
          autocomplete: 'current-password', maxlength: 1024, required: true });
        form.append(el('label', { for: 'account-password' }, 'Enter the password of ' + state.recipient.email + ' to confirm it is you.'), input);
        return () => input.value;
      }, (password) => act({ method: 'PASSWORD', password }), label);
      return;
    }
    if (kind === 'PASSKEY') {
      const { publicKey } = await call('/passkey-challenge', {});
      const credential = await window.DocketWebAuthn.get(publicKey);
      await act({ method: 'PASSKEY', credential });
      return;
    }
    await act(null);
  }

  async function complete() {
    const button = document.getElementById('complete');
    button.disabled = true;
    try {
      await withProof(ACTION[state.recipient.role], async (auth) => {
        await call('/complete', auth ? { auth } : {});
        afterComplete();
      });
      // A code dialog may still be open; the button works again if it is closed.
      if (document.getElementById('complete')) button.disabled = false;
    } catch (e) {
      button.disabled = false;
      document.getElementById('signing-status').textContent = e.message;
    }
  }

  function afterComplete() {
    const url = state.document.redirectUrl;
    if (url && /^https?:\/\//.test(url)) {
      window.location.assign(url);
      return;
    }
    finished('Thank you: you have finished. You will receive the signed document by e-mail once everyone has signed.');
  }

  function finished(text) {
    root.replaceChildren(el('h1', {}, state.document.title), el('p', { id: 'done', class: 'notice', role: 'status' }, text));
  }

  async function reload() {
    try {
      state = await call('/state');
      render();
    } catch (e) {
      say(e.message, 'error');
    }
  }

  reload();
})();
