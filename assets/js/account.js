// The account page: adds a passkey (the rest of the page is plain forms). Adding one asks the
// session to have confirmed who it is lately; when it has not, the confirmation page comes
// first and brings the user back here.
'use strict';

(function () {
  const box = document.getElementById('passkey-add');
  if (!box || !window.DocketWebAuthn) return;
  const status = document.getElementById('passkey-status');
  const csrf = { 'x-csrf-token': box.dataset.csrf };
  window.DocketWebAuthn.bind(document.getElementById('add-passkey'), status, async () => {
    let publicKey;
    try {
      ({ publicKey } = await window.DocketWebAuthn.post('/account/passkeys/options', {}, csrf));
    } catch (e) {
      if (e.code === 'confirmation_required') {
        const back = window.location.pathname + window.location.search;
        window.location.assign('/account/confirm?next=' + encodeURIComponent(back));
        return;
      }
      throw e;
    }
    const credential = await window.DocketWebAuthn.create(publicKey);
    const name = document.getElementById('passkey-name').value || 'Passkey';
    await window.DocketWebAuthn.post('/account/passkeys', { credential, name }, csrf);
    status.textContent = 'Passkey added.';
    window.location.reload();
  }, 'No passkey was added: ');
})();
