// The second step of a login with a passkey.
'use strict';

(function () {
  const box = document.getElementById('passkey-login');
  if (!box) return;
  const button = document.getElementById('use-passkey');
  const status = document.getElementById('passkey-status');
  if (!window.DocketWebAuthn || !window.DocketWebAuthn.supported()) {
    button.disabled = true;
    status.textContent = 'This browser cannot use passkeys.';
    return;
  }
  button.addEventListener('click', async () => {
    button.disabled = true;
    status.textContent = 'Follow your browser\u2019s prompt\u2026';
    try {
      const { publicKey } = await window.DocketWebAuthn.post('/auth/login/passkey/options', {});
      const credential = await window.DocketWebAuthn.get(publicKey);
      const done = await window.DocketWebAuthn.post('/auth/login/passkey', { credential, next: box.dataset.next });
      window.location.assign(done.next);
    } catch (e) {
      status.textContent = 'That did not work: ' + e.message;
      button.disabled = false;
    }
  });
})();
