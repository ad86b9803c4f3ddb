// The account page: adds a passkey (the rest of the page is plain forms).
'use strict';

(function () {
  const box = document.getElementById('passkey-add');
  if (!box) return;
  const button = document.getElementById('add-passkey');
  const status = document.getElementById('passkey-status');
  const csrf = { 'x-csrf-token': box.dataset.csrf };
  if (!window.DocketWebAuthn || !window.DocketWebAuthn.supported()) {
    button.disabled = true;
    status.textContent = 'This browser cannot use passkeys.';
    return;
  }
  button.addEventListener('click', async () => {
    button.disabled = true;
    status.textContent = 'Follow your browser\u2019s prompt\u2026';
    try {
      const { publicKey } = await window.DocketWebAuthn.post('/account/passkeys/options', {}, csrf);
      const credential = await window.DocketWebAuthn.create(publicKey);
      const name = document.getElementById('passkey-name').value || 'Passkey';
      await window.DocketWebAuthn.post('/account/passkeys', { credential, name }, csrf);
      status.textContent = 'Passkey added.';
      window.location.reload();
    } catch (e) {
      status.textContent = 'No passkey was added: ' + e.message;
      button.disabled = false;
    }
  });
})();
