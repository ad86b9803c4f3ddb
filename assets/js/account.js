// The account page: adds a passkey (the rest of the page is plain forms).
'use strict';

(function () {
  const box = document.getElementById('passkey-add');
  if (!box || !window.DocketWebAuthn) return;
  const status = document.getElementById('passkey-status');
  const csrf = { 'x-csrf-token': box.dataset.csrf };
  window.DocketWebAuthn.bind(document.getElementById('add-passkey'), status, async () => {
    const { publicKey } = await window.DocketWebAuthn.post('/account/passkeys/options', {}, csrf);
    const credential = await window.DocketWebAuthn.create(publicKey);
    const name = document.getElementById('passkey-name').value || 'Passkey';
    await window.DocketWebAuthn.post('/account/passkeys', { credential, name }, csrf);
    status.textContent = 'Passkey added.';
    window.location.reload();
  }, 'No passkey was added: ');
})();
