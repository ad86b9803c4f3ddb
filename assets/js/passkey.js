// Confirming with a passkey: the second step of a login, or "confirm it is you" before a change
// of sign-in security. The box names the two calls (data-options, data-answer) and, on the
// account pages, the CSRF token (data-csrf).

import { call } from './request.js';
import { bind, get } from './webauthn.js';

const box = document.getElementById('passkey-login');
if (box) {
  const status = document.getElementById('passkey-status');
  const options = box.dataset.options || '/auth/login/passkey/options';
  const answer = box.dataset.answer || '/auth/login/passkey';
  const csrf = box.dataset.csrf;
  bind(document.getElementById('use-passkey'), status, async () => {
    const { publicKey } = await call('POST', options, {}, { csrf });
    const credential = await get(publicKey);
    const done = await call('POST', answer, { credential, next: box.dataset.next }, { csrf });
    window.location.assign(done.next);
  }, 'That did not work: ');
}
