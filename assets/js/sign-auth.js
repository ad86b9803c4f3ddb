// Recipient authentication on the signing page: the banner that says what the document will
// ask for, the way to set up a missing passkey (the account page, and back), and the proof a
// finishing action carries. What is asked comes from the server's state
// (`state.auth`: `actionAuth` to finish, `rejectAuth` to reject); the page decides nothing. A
// six-digit code comes from an authenticator app or, on request, by e-mail, so an account
// without an app is never stuck.

import { el } from './dom.js';
import { sentence } from './messages.js';
import { t } from './i18n.js';
import { dialog } from './sign-ui.js';
import { get } from './webauthn.js';

// What finishing will ask for, in words.
const ASKED = {
  TWO_FACTOR_AUTH: 'script-asked-totp',
  PASSKEY: 'script-asked-passkey',
  PASSWORD: 'script-asked-password',
};

// The factor the document asks for that the signed-in account lacks: what to set up, where.
// (A code needs none: one can be e-mailed.)
export function setup(state, here) {
  const a = state.auth || {};
  if (!a.accountReady) return null;
  const enrolled = a.enrolled || {};
  const href = '/account?next=' + encodeURIComponent(here);
  if (a.actionAuth === 'PASSKEY' && !enrolled.passkeys) {
    return { href, what: t('script-setup-passkey-what'), label: t('script-setup-passkey-label'), thing: t('script-setup-passkey-thing') };
  }
  return null;
}

// The banner above the document: who must sign in, and what finishing will ask.
export function banner(state, here) {
  const a = state.auth || {};
  const me = state.recipient;
  if (!a.actionAuth && !a.accessAuth) return null;
  const box = el('div', { class: 'alert info', id: 'auth-banner' });
  const asked = ASKED[a.actionAuth] && t(ASKED[a.actionAuth]);
  if (!a.accountReady) {
    const login = '/auth/login?next=' + encodeURIComponent(here) + '&email=' + encodeURIComponent(me.email);
    box.append(el('p', {}, a.signedInAs
      ? t('script-auth-wrong-account', { other: a.signedInAs, email: me.email })
      : t('script-auth-sign-in', { email: me.email })));
    if (asked) box.append(el('p', {}, t('script-auth-also-asks', { asked })));
    const actions = el('div', { class: 'row' },
      el('a', { class: 'button primary', id: 'sign-in', href: login }, t('script-auth-sign-in-as', { email: me.email })));
    box.append(actions);
    if (a.inviteCsrf) {
      box.append(el('p', {}, t('script-auth-no-account')));
      actions.append(el('form', { method: 'post', action: here + '/account' },
        el('input', { type: 'hidden', name: 'csrf_token', value: a.inviteCsrf }),
        el('button', { type: 'submit', class: 'button', id: 'create-account' }, t('script-auth-create-account'))));
    }
    return box;
  }
  const missing = setup(state, here);
  if (missing) {
    box.append(el('p', {}, t('script-auth-missing', { account: a.signedInAs, asked, thing: missing.thing })));
    box.append(el('p', {}, t('script-auth-missing-how')));
    box.append(el('div', { class: 'row' }, el('a', { class: 'button primary', id: 'enrol', href: missing.href }, missing.label)));
  } else if (asked) {
    box.append(el('p', {}, t('script-auth-will-ask', { account: a.signedInAs, asked })));
    if (a.actionAuth === 'TWO_FACTOR_AUTH' && !(a.enrolled || {}).totp) {
      // No app: a code by e-mail will do, and setting one up stays a choice.
      box.append(el('p', {}, t('script-auth-no-app', { email: me.email })));
      box.append(el('div', { class: 'row' }, el('a', { class: 'button', id: 'enrol',
        href: '/account?next=' + encodeURIComponent(here) }, t('script-setup-totp-label'))));
    }
  } else {
    box.append(el('p', {}, t('script-auth-signed-in', { account: a.signedInAs })));
  }
  return box;
}

// Runs `act(auth)` with the proof `kind` names: none, a six-digit code or the account password
// (asked for in a dialog that stays open with the server's answer when it is wrong), or a
// passkey assertion (the browser asks). `call` makes the link's JSON calls; `app` says
// whether the account has an authenticator app (the code's hint then names it first).
export async function withProof(kind, label, email, call, act, app) {
  if (kind === 'TWO_FACTOR_AUTH') {
    dialog(t('script-totp-title'), (form) => {
      const input = el('input', { id: 'totp-code', name: 'code', type: 'text', inputmode: 'numeric',
        autocomplete: 'one-time-code', pattern: '[0-9 ]{6,7}', maxlength: 7, required: true,
        'aria-describedby': 'totp-hint email-code-status' });
      const hint = app ? t('script-totp-hint') : t('script-code-hint-email', { email });
      const status = el('p', { class: 'hint', id: 'email-code-status', role: 'status' });
      const mail = el('button', { type: 'button', class: 'button', id: 'email-code' }, t('script-code-email'));
      mail.addEventListener('click', () => emailCode(call, email, mail, status, input));
      form.append(el('label', { for: 'totp-code' }, t('script-totp-label')),
        el('div', { class: 'code-row' }, input, mail),
        el('p', { class: 'hint', id: 'totp-hint' }, hint), status);
      return () => input.value;
    }, (code) => act({ method: 'TWO_FACTOR_AUTH', code }), label);
    return;
  }
  if (kind === 'PASSWORD') {
    dialog(t('script-password-title'), (form) => {
      const input = el('input', { id: 'account-password', name: 'password', type: 'password',
        autocomplete: 'current-password', maxlength: 1024, required: true });
      form.append(el('label', { for: 'account-password' }, t('script-password-label', { email })), input);
      return () => input.value;
    }, (password) => act({ method: 'PASSWORD', password }), label);
    return;
  }
  if (kind === 'PASSKEY') {
    const { publicKey } = await call('/passkey-challenge', {});
    const credential = await get(publicKey);
    await act({ method: 'PASSKEY', credential });
    return;
  }
  await act(null);
}

// Asks the server to e-mail a code (`POST /sign/<token>/email-code`) and says what came of it
// in `status`; the code box gets the focus, ready for the code from the mail.
async function emailCode(call, email, button, status, input) {
  button.disabled = true;
  try {
    const sent = await call('/email-code', {});
    status.textContent = t('script-code-sent', { email: sent.sentTo || email });
    input.focus();
  } catch (e) {
    status.textContent = e && e.status === 429 ? t('script-code-wait')
      : sentence((e && e.said) || t('script-failed', { status: (e && e.status) || 0 }));
  } finally {
    button.disabled = false;
  }
}

