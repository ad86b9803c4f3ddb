// Confirming with a passkey: the second step of a login, or "confirm it is you" before a change
// of sign-in security. The box names the two calls (data-options, data-answer) and, on the
// account pages, the CSRF token (data-csrf).
'use strict';

(function () {
  const box = document.getElementById('passkey-login');
  if (!box || !window.DocketWebAuthn) return;
  const status = document.getElementById('passkey-status');
  const options = box.dataset.options || '/auth/login/passkey/options';
  const answer = box.dataset.answer || '/auth/login/passkey';
  const headers = box.dataset.csrf ? { 'x-csrf-token': box.dataset.csrf } : {};
  window.DocketWebAuthn.bind(document.getElementById('use-passkey'), status, async () => {
    const { publicKey } = await window.DocketWebAuthn.post(options, {}, headers);
    const credential = await window.DocketWebAuthn.get(publicKey);
    const done = await window.DocketWebAuthn.post(answer, { credential, next: box.dataset.next }, headers);
    window.location.assign(done.next);
  }, 'That did not work: ');
})();
