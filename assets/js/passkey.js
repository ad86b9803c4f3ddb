// The second step of a login with a passkey.
'use strict';

(function () {
  const box = document.getElementById('passkey-login');
  if (!box || !window.DocketWebAuthn) return;
  const status = document.getElementById('passkey-status');
  window.DocketWebAuthn.bind(document.getElementById('use-passkey'), status, async () => {
    const { publicKey } = await window.DocketWebAuthn.post('/auth/login/passkey/options', {});
    const credential = await window.DocketWebAuthn.get(publicKey);
    const done = await window.DocketWebAuthn.post('/auth/login/passkey', { credential, next: box.dataset.next });
    window.location.assign(done.next);
  }, 'That did not work: ');
})();
