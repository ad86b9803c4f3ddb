// Recipient authentication on the signing page: the banner that says what the document will
// ask for, the way to set up a missing factor (the account page, and back), and the proof a
// finishing action carries. What is asked comes from the server's state
// (`state.auth`: `actionAuth` to finish, `rejectAuth` to reject); the page decides nothing.

import { el } from './dom.js';
import { dialog } from './sign-ui.js';
import { get } from './webauthn.js';

// What finishing will ask for, in words.
const ASKED = {
  TWO_FACTOR_AUTH: 'a code from your authenticator app',
  PASSKEY: 'your passkey',
  PASSWORD: 'your Docket account password again',
};

// The factor the document asks for that the signed-in account lacks: what to set up, where.
export function setup(state, here) {
  const a = state.auth || {};
  if (!a.accountReady) return null;
  const enrolled = a.enrolled || {};
  const href = '/account?next=' + encodeURIComponent(here);
  if (a.actionAuth === 'TWO_FACTOR_AUTH' && !enrolled.totp) {
    return { href, what: 'an authenticator app', label: 'Set up an authenticator app' };
  }
  if (a.actionAuth === 'PASSKEY' && !enrolled.passkeys) {
    return { href, what: 'a passkey', label: 'Add a passkey' };
  }
  return null;
}

// The banner above the document: who must sign in, and what finishing will ask.
export function banner(state, here) {
  const a = state.auth || {};
  const me = state.recipient;
  if (!a.actionAuth && !a.accessAuth) return null;
  const box = el('div', { class: 'alert info', id: 'auth-banner' });
  const asked = ASKED[a.actionAuth];
  if (!a.accountReady) {
    const login = '/auth/login?next=' + encodeURIComponent(here) + '&email=' + encodeURIComponent(me.email);
    box.append(el('p', {}, a.signedInAs
      ? 'You are signed in as ' + a.signedInAs + ', but this document is for ' + me.email + '.'
      : 'This document asks you to sign in to your Docket account for ' + me.email + ' before you fill it in.'));
    if (asked) box.append(el('p', {}, 'When you finish, it will also ask for ' + asked + '.'));
    const actions = el('div', { class: 'row' },
      el('a', { class: 'button primary', id: 'sign-in', href: login }, 'Sign in as ' + me.email));
    box.append(actions);
    if (a.inviteCsrf) {
      box.append(el('p', {}, 'No account yet? We e-mail you a link to create one.'));
      actions.append(el('form', { method: 'post', action: here + '/account' },
        el('input', { type: 'hidden', name: 'csrf_token', value: a.inviteCsrf }),
        el('button', { type: 'submit', class: 'button', id: 'create-account' }, 'Create an account')));
    }
    return box;
  }
  const missing = setup(state, here);
  if (missing) {
    box.append(el('p', {}, 'Signed in as ' + a.signedInAs + '. To sign, this document asks for ' + asked
      + ', and your account has no ' + missing.what.replace(/^an? /, '') + ' yet.'));
    box.append(el('p', {}, 'Set one up on your account page: it takes a few minutes, and brings you back here.'
      + ' What you fill in meanwhile is kept. You can also reject the document without it.'));
    box.append(el('div', { class: 'row' }, el('a', { class: 'button primary', id: 'enrol', href: missing.href }, missing.label)));
  } else if (asked) {
    box.append(el('p', {}, 'Signed in as ' + a.signedInAs + '. When you finish, you will be asked for ' + asked + '.'));
  } else {
    box.append(el('p', {}, 'Signed in as ' + a.signedInAs + '.'));
  }
  return box;
}

// Runs `act(auth)` with the proof `kind` names: none, a TOTP code or the account password
// (asked for in a dialog that stays open with the server's answer when it is wrong), or a
// passkey assertion (the browser asks). `call` makes the link's JSON calls.
export async function withProof(kind, label, email, call, act) {
  if (kind === 'TWO_FACTOR_AUTH') {
    dialog('Confirm with your authenticator app', (form) => {
      const input = el('input', { id: 'totp-code', name: 'code', type: 'text', inputmode: 'numeric',
        autocomplete: 'one-time-code', pattern: '[0-9 ]{6,7}', maxlength: 7, required: true,
        'aria-describedby': 'totp-hint' });
      form.append(el('label', { for: 'totp-code' }, 'Code from your authenticator app'), input,
        el('p', { class: 'hint', id: 'totp-hint' }, 'The six digits your app shows now for Docket.'));
      return () => input.value;
    }, (code) => act({ method: 'TWO_FACTOR_AUTH', code }), label);
    return;
  }
  if (kind === 'PASSWORD') {
    dialog('Confirm with your password', (form) => {
      const input = el('input', { id: 'account-password', name: 'password', type: 'password',
        autocomplete: 'current-password', maxlength: 1024, required: true });
      form.append(el('label', { for: 'account-password' }, 'Enter the password of ' + email + ' to confirm it is you.'), input);
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

