// The signing page: shows the document's pages with this recipient's fields over them, lets the
// recipient fill each field (mouse, finger or keyboard), then complete or reject. Every value is
// checked again by the server; this script only helps. A status line says what to do now; a bar
// kept at the bottom of the screen counts the required fields, goes to the next empty one, and
// holds the finishing buttons. Recipient authentication (the banner, the way to set up a
// missing factor, the proof a finishing action carries) is in `sign-auth.js`; the elements and
// dialogs in `sign-ui.js`.
//
// The page says what happens on its section as `signing:<name>` events (`ready`,
// `field-signed`, `field-unsigned`, `completed`, `rejected`, `error`), which the embedded page
// (`embed.js`) passes on to the framing site. There (`data-embed`) the section also carries
// the embedding component's presets: `data-preset-name` and `data-preset-email` (with
// `data-lock-name`, `data-lock-email`) for NAME and EMAIL fields, and `data-reject="no"` when
// the site does not offer rejecting; the sender's redirect is the framing site's to make.

import { sentence } from './messages.js';
import { t } from './i18n.js';
import { call as request } from './request.js';
import * as Auth from './sign-auth.js';
import { el } from './dom.js';
import { dialog } from './sign-ui.js';
import { fitValue } from './fit-value.js';

start();

function start() {
  const root = document.getElementById('signing');
  if (!root) return;
  // The sender's links, as the page came (sign/shell.html): kept under the title through every
  // drawing of the section.
  const links = [...root.querySelectorAll(':scope > ul.attachments, :scope > .attachments-note')];
  const token = root.dataset.token;
  const base = '/sign/' + encodeURIComponent(token);
  const preset = root.dataset;
  const embedded = 'embed' in preset;
  let state = null;
  let ready = false;

  const emit = (name, detail) => root.dispatchEvent(new CustomEvent('signing:' + name, { detail }));
  // What `document-completed` and `document-rejected` carry.
  const ids = () => ({ token, documentId: state.document.id, recipientId: state.recipient.id });

  let drawnVersion = Date.now();

  // The link's calls: a GET without `body`, a POST with it.
  const call = (path, body) => request(body === undefined ? 'GET' : 'POST', base + path, body);

  function say(text, kind) {
    const line = document.getElementById('signing-status');
    if (!line) return;
    line.textContent = sentence(text);
    line.className = 'signing-status' + (kind === 'error' ? ' alert error' : '');
  }

  const ACTION = {
    SIGNER: t('script-action-signer'), APPROVER: t('script-action-approver'),
    VIEWER: t('script-action-viewer'), ASSISTANT: t('script-action-assistant'),
  };

  // A field an assistant fills in for a later recipient names them.
  function fieldLabel(f) {
    const own = ownLabel(f);
    const other = f.forRecipient;
    return other ? t('script-field-for', { label: own, name: other.name || other.email }) : own;
  }

  function ownLabel(f) {
    const meta = f.fieldMeta || {};
    if (meta.label) return meta.label;
    const id = {
      SIGNATURE: 'script-field-signature', FREE_SIGNATURE: 'script-field-signature',
      INITIALS: 'script-field-initials', NAME: 'script-field-name', EMAIL: 'script-field-email',
      DATE: 'script-field-date', TEXT: 'script-field-text', NUMBER: 'script-field-number',
      RADIO: 'script-field-radio', CHECKBOX: 'script-field-checkbox', SELECT: 'script-field-select',
      DROPDOWN: 'script-field-select',
    }[f.type];
    return id ? t(id) : f.type;
  }

  function isRequired(f) {
    if (f.type === 'DATE' || f.forRecipient) return false;
    if (['SIGNATURE', 'FREE_SIGNATURE'].includes(f.type)) return true;
    return !!(f.fieldMeta && f.fieldMeta.required);
  }

  // What a field's box shows: the drawn signature as its image, a typed one in script style.
  function fieldContent(f) {
    if (f.drawn) {
      return el('img', { class: 'sign-image', alt: t('script-your-signature', { label: fieldLabel(f) }),
        src: base + '/fields/' + f.id + '/signature.png?v=' + drawnVersion });
    }
    if (['SIGNATURE', 'FREE_SIGNATURE', 'INITIALS'].includes(f.type) && f.value) {
      return el('span', { class: 'sign-typed' }, f.value);
    }
    // A value as the seal writes it: a checkbox's choices after a check mark.
    if (f.value) {
      const shown = f.type === 'CHECKBOX' ? checked(f) : f.value;
      if (shown) return el('span', { class: 'sign-text' }, shown);
    }
    return fieldText(f);
  }

  function checked(f) {
    try {
      const labels = JSON.parse(f.value);
      return labels.length ? '\u2713 ' + labels.join(', ') : '';
    } catch (_) { return f.value; }
  }

  // A field button's accessible name: what it shows (a value, or its label), then its label
  // where the value does not say it, and whether it is filled or required.
  function fieldName(f) {
    if (f.drawn) return t('script-field-filled', { name: fieldLabel(f) });
    const typed = ['SIGNATURE', 'FREE_SIGNATURE', 'INITIALS'].includes(f.type) && f.value;
    const shown = typed ? f.value : fieldText(f);
    const label = fieldLabel(f);
    let name = shown.includes(label) ? shown : shown + ', ' + label;
    if (f.inserted) return t('script-field-filled', { name });
    if (isRequired(f)) return t('script-field-required', { name });
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

  function canAct() {
    const a = state.auth || {};
    return a.accountReady !== false;
  }

  // Whether the recipient can act on their fields now: their turn, not finished, signed in.
  function acting() {
    const me = state.recipient;
    return state.yourTurn && me.signingStatus === 'NOT_SIGNED' && me.role !== 'CC' && canAct();
  }

  // The required fields in reading order (page, then top to bottom, then left to right).
  function requiredFields() {
    return state.fields.filter(isRequired)
      .sort((a, b) => a.page - b.page || a.positionY - b.positionY || a.positionX - b.positionX);
  }

  // The status line: what to do now.
  function statusLine(setup) {
    const me = state.recipient;
    const a = state.auth || {};
    const action = ACTION[me.role];
    if (state.document.status === 'COMPLETED') return t('script-done-complete');
    if (me.role === 'CC') return t('script-status-cc');
    if (me.signingStatus !== 'NOT_SIGNED') return t('script-status-finished');
    if (!state.yourTurn) return t('script-status-not-your-turn');
    if (!canAct()) {
      return t(a.signedInAs ? 'script-status-sign-out-first' : 'script-status-sign-in-first', { email: me.email });
    }
    const left = requiredFields().filter((f) => !f.inserted).length;
    if (me.role === 'ASSISTANT') return t('script-status-assistant', { action });
    if (left > 0) {
      return setup
        ? t('script-status-fields-left-setup', { count: left, what: setup.what })
        : t('script-status-fields-left', { count: left, action });
    }
    if (setup) return t('script-status-setup', { what: setup.what, label: setup.label });
    if (!state.fields.length) return t('script-status-read', { action });
    return t('script-status-ready', { action });
  }

  // The bar that stays at the bottom of the screen while the recipient acts: progress, "Next
  // field", and the finishing buttons (or the way to set up what finishing will ask for).
  function actionBar(setup) {
    const me = state.recipient;
    const required = requiredFields();
    const done = required.filter((f) => f.inserted).length;
    const bar = el('div', { class: 'sign-bar', id: 'sign-bar', role: 'region', 'aria-label': t('script-progress-region') });
    if (required.length) {
      bar.append(el('div', { class: 'sign-progress' },
        el('progress', { id: 'sign-progress', max: required.length, value: done, 'aria-labelledby': 'sign-progress-text' }),
        el('span', { id: 'sign-progress-text' }, t('script-progress', { done, total: required.length }))));
    }
    const buttons = el('div', { class: 'sign-buttons' });
    if (done < required.length) {
      buttons.append(el('button', { type: 'button', class: 'button', id: 'next-field', onclick: nextField }, t('script-next-field')));
    }
    if (setup) {
      buttons.append(el('a', { class: 'button primary', id: 'enrol-to-sign', href: setup.href }, setup.label));
    } else {
      buttons.append(el('button', {
        type: 'button', class: 'button primary', id: 'complete', disabled: done < required.length, onclick: complete,
      }, ACTION[me.role]));
    }
    if (preset.reject !== 'no') {
      buttons.append(el('button', { type: 'button', class: 'button danger-outline', id: 'reject', onclick: rejectDialog }, t('script-reject')));
    }
    bar.append(buttons);
    return bar;
  }

  // The field that last had focus: "Next field" goes on from there (pressing it takes the focus).
  let lastField = null;

  // Scrolls to the next required field still empty after the last one with focus (wrapping
  // round) and focuses it.
  function nextField() {
    const empty = requiredFields().filter((f) => !f.inserted);
    if (!empty.length) return;
    const order = requiredFields();
    const from = order.findIndex((f) => f.id === lastField);
    const next = empty.find((f) => order.indexOf(f) > from) || empty[0];
    focusField(next.id, true);
  }

  function focusField(id, scroll) {
    const b = root.querySelector('.sign-field[data-field-id="' + id + '"]');
    if (!b) return;
    const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    if (scroll) b.scrollIntoView({ block: 'center', behavior: still ? 'auto' : 'smooth' });
    b.focus({ preventScroll: !!scroll });
  }

  function render() {
    const d = state.document;
    const active = acting();
    const setup = active ? Auth.setup(state, here()) : null;
    root.replaceChildren();
    root.append(el('h1', {}, d.title));
    root.append(el('p', { class: 'muted sender' }, t('script-sent-by', { name: d.senderName, email: d.senderEmail })));
    root.append(...links);
    const banner = Auth.banner(state, here());
    if (banner) root.append(banner);
    root.append(el('p', { id: 'signing-status', class: 'signing-status', role: 'status' }, statusLine(setup)));
    if (d.status === 'COMPLETED') root.append(downloadLink());

    const pages = el('div', { class: 'sign-pages' });
    d.pages.forEach((size, i) => {
      const n = i + 1;
      const pageBox = el('div', {
        class: 'sign-page', style: { aspectRatio: size[0] + ' / ' + size[1] }, 'data-pt-width': size[0],
        'aria-label': t('script-page-of', { n, total: d.pages.length }), role: 'group',
      });
      pageBox.append(el('img', {
        src: base + '/pages/' + n + '.png?w=1200', alt: t('script-page', { n }), loading: i < 2 ? 'eager' : 'lazy', 'data-retry': true,
        width: 1200, height: Math.round(1200 * size[1] / size[0]),
      }));
      for (const f of state.fields.filter((x) => x.page === n)) {
        const editable = active && f.type !== 'DATE' && !(f.fieldMeta && f.fieldMeta.readOnly);
        const b = el('button', {
          type: 'button', class: 'sign-field' + (f.inserted ? ' filled' : '') + (isRequired(f) ? ' required' : ''),
          style: { left: f.positionX + '%', top: f.positionY + '%', width: f.width + '%', height: f.height + '%' },
          'data-field-id': f.id, 'data-type': f.type, disabled: !editable,
          'aria-label': fieldName(f),
          onclick: () => edit(f), onfocus: () => { lastField = f.id; },
        }, fieldContent(f));
        pageBox.append(b);
      }
      pages.append(pageBox);
    });
    root.append(pages);
    if (active) root.append(actionBar(setup));
    fitValues();
  }

  // Values and typed signatures laid out as the sealed PDF stamps them (fit-value.js).
  function fitValues() {
    for (const span of root.querySelectorAll('.sign-field .sign-typed, .sign-field .sign-text')) {
      const box = span.parentElement;
      const page = box.parentElement;
      const f = state.fields.find((x) => String(x.id) === box.dataset.fieldId);
      const align = f && f.fieldMeta ? f.fieldMeta.textAlign : undefined;
      fitValue(span, box, page.clientWidth / Number(page.dataset.ptWidth), align);
    }
  }
  window.addEventListener('resize', () => { if (state) fitValues(); });
  // The script face loads when first used: fit again once it has.
  if (document.fonts) document.fonts.addEventListener('loadingdone', () => { if (state) fitValues(); });

  async function save(f, body) {
    await call('/fields/' + f.id, body);
    drawnVersion = Date.now();
    emit('field-signed', { fieldId: f.id, value: body.value ?? body.typed ?? body.signature ?? null, isBase64: !!body.signature });
    await reload();
    // Back on the field just filled once the dialog has closed, ready for "Next field".
    setTimeout(() => focusField(f.id, false), 0);
  }

  // Empties a filled field again (the dialog's "Clear").
  async function unfill(f) {
    await request('DELETE', base + '/fields/' + f.id, {});
    emit('field-unsigned', { fieldId: f.id });
    await reload();
    setTimeout(() => focusField(f.id, false), 0);
  }

  function options(f) {
    return ((f.fieldMeta && f.fieldMeta.values) || []).map((v) => v.value);
  }

  function edit(f) {
    const meta = f.fieldMeta || {};
    const me = state.recipient;
    // A filled field's dialog offers to empty it.
    const extra = f.inserted ? { clear: () => unfill(f) } : undefined;
    switch (f.type) {
      case 'SIGNATURE': case 'FREE_SIGNATURE': case 'INITIALS':
        return signatureDialog(f, extra);
      case 'NAME': case 'EMAIL': case 'TEXT': {
        const who = f.forRecipient || me;
        // The embedding site's presets speak for this recipient, not for those after them.
        const mine = !f.forRecipient;
        const name = (mine && preset.presetName) || who.name;
        const email = (mine && preset.presetEmail) || who.email;
        const locked = mine && ((f.type === 'NAME' && 'lockName' in preset) || (f.type === 'EMAIL' && 'lockEmail' in preset));
        const initial = locked ? (f.type === 'NAME' ? name : email)
          : f.value || (f.type === 'NAME' ? name : f.type === 'EMAIL' ? email : (meta.text || ''));
        return dialog(fieldLabel(f), (form) => {
          const attrs = { id: 'field-input', name: 'value', value: initial, required: true, readonly: locked,
            type: f.type === 'EMAIL' ? 'email' : 'text', autocomplete: f.type === 'NAME' ? 'name' : f.type === 'EMAIL' ? 'email' : 'off',
            maxlength: meta.characterLimit || null, placeholder: meta.placeholder || null };
          const input = el('input', attrs);
          form.append(el('label', { for: 'field-input' }, fieldLabel(f)), input);
          return () => ({ value: input.value });
        }, (v) => save(f, v), undefined, extra);
      }
      case 'NUMBER':
        return dialog(fieldLabel(f), (form) => {
          const input = el('input', { id: 'field-input', type: 'number', step: 'any', required: true,
            min: meta.minValue ?? null, max: meta.maxValue ?? null, value: f.value || (meta.value ?? '') });
          form.append(el('label', { for: 'field-input' }, fieldLabel(f)), input);
          return () => ({ value: input.value });
        }, (v) => save(f, v), undefined, extra);
      case 'SELECT':
      case 'DROPDOWN':
        return dialog(fieldLabel(f), (form) => {
          const select = el('select', { id: 'field-input', required: true },
            el('option', { value: '' }, t('script-choose')),
            options(f).map((o) => el('option', { value: o, selected: (f.value || meta.defaultValue) === o }, o)));
          form.append(el('label', { for: 'field-input' }, fieldLabel(f)), select);
          return () => ({ value: select.value });
        }, (v) => save(f, v), undefined, extra);
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
        }, (v) => save(f, v), undefined, extra);
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
        }, (v) => save(f, v), undefined, extra);
      }
      default:
        return undefined;
    }
  }

  // Draw with a pointer (mouse, pen, finger) or type the name; the keyboard reaches both.
  function signatureDialog(f, extra) {
    dialog(fieldLabel(f), (form) => {
      const canvas = el('canvas', { class: 'sign-pad', width: 600, height: 200, tabindex: 0,
        'aria-label': t('script-pad') });
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
      } }, t('script-clear'));
      const typed = el('input', { id: 'typed-signature', class: 'sign-typed-input', type: 'text', maxlength: 100, autocomplete: 'name',
        placeholder: f.type === 'INITIALS' ? t('script-your-initials') : (preset.presetName || state.recipient.name) });
      form.append(canvas, clear, el('label', { for: 'typed-signature' }, t('script-or-type')), typed);
      return () => {
        if (typed.value.trim()) return { typed: typed.value.trim() };
        if (drawn) return { signature: canvas.toDataURL('image/png') };
        throw new Error(t('script-draw-or-type'));
      };
    }, (v) => save(f, v), undefined, extra);
  }

  // Whether the signed-in account has an authenticator app (else a code comes by e-mail).
  const hasApp = () => !!((state.auth || {}).enrolled || {}).totp;

  // Rejecting asks for the proof `state.auth.rejectAuth` names (none: the sign-in suffices).
  function rejectDialog() {
    dialog(t('script-reject-title'), (form) => {
      const reason = el('textarea', { id: 'reject-reason', required: true, maxlength: 500, rows: 4 });
      form.append(el('label', { for: 'reject-reason' }, t('script-reject-why')), reason);
      return () => ({ reason: reason.value });
    }, async (v) => {
      const kind = (state.auth || {}).rejectAuth;
      await Auth.withProof(kind, t('script-reject-button'), state.recipient.email, call, async (auth) => {
        await call('/reject', auth ? { ...v, auth } : v);
        emit('rejected', { ...ids(), reason: v.reason });
        finished(t('script-rejected'), 'info');
      }, hasApp());
    }, t('script-reject-button'));
  }

  async function complete() {
    const button = document.getElementById('complete');
    button.disabled = true;
    try {
      const kind = (state.auth || {}).actionAuth;
      await Auth.withProof(kind, ACTION[state.recipient.role], state.recipient.email, call, async (auth) => {
        const done = await call('/complete', auth ? { auth } : {});
        emit('completed', ids());
        afterComplete(done);
      }, hasApp());
      // A code dialog may still be open; the button works again if it is closed.
      if (document.getElementById('complete')) button.disabled = false;
    } catch (e) {
      button.disabled = false;
      say(problem(e), 'error');
      emit('error', problem(e));
    }
  }

  // After finishing: the sender's page when they gave one; otherwise, for the last recipient,
  // "being prepared" until the sealed copy exists, then the copy to download (no reload).
  function afterComplete(done) {
    const url = state.document.redirectUrl;
    if (url && /^https?:\/\//.test(url) && !embedded) {
      window.location.assign(url);
      return;
    }
    if (!done || !done.documentCompleting) {
      finished(t('script-done-wait'));
      return;
    }
    finished(t('script-done-sealing'));
    waitForSignedCopy();
  }

  // Asks for the document's state, less often as time goes by, until it is COMPLETED (sealed),
  // for about two minutes; then says the copy comes by e-mail.
  async function waitForSignedCopy() {
    let wait = 500;
    for (let spent = 0; spent < 120000; spent += wait) {
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 1.5, 5000);
      try {
        const now = await call('/state');
        if (now.document.status === 'COMPLETED') {
          finished(t('script-done-complete'), 'success', true);
          return;
        }
      } catch (_) { /* the next try may work */ }
    }
    finished(t('script-done-sealing-slow'), 'info');
  }

  // The link's own download of the sealed PDF.
  function downloadLink() {
    return el('p', {}, el('a', { class: 'button primary', id: 'download-signed', href: base + '/download' }, t('script-download')));
  }

  function finished(text, kind, download) {
    root.replaceChildren(el('h1', {}, state.document.title),
      el('p', { id: 'done', class: 'alert ' + (kind || 'success'), role: 'status' }, text), ...links);
    if (download) {
      root.append(downloadLink());
      document.getElementById('download-signed').focus();
    }
  }

  // What a failed request says: the server's words, or that it failed.
  function problem(e) {
    if (e && e.said) return e.said;
    if (e && e.status) return t('script-failed', { status: e.status });
    return String((e && e.message) || e);
  }

  async function reload() {
    try {
      state = await call('/state');
      render();
      if (!ready) {
        ready = true;
        emit('ready', null);
      }
    } catch (e) {
      say(problem(e), 'error');
      emit('error', problem(e));
    }
  }

  reload();
}
