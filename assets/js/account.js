// The account page: adds a passkey (the rest of the page is plain forms). Adding one asks the
// session to have confirmed who it is lately; when it has not, the confirmation page comes
// first and brings the user back here.

import { setStatus } from './messages.js';
import { call } from './request.js';
import { bind, create } from './webauthn.js';

const box = document.getElementById('passkey-add');
if (box) {
  const status = document.getElementById('passkey-status');
  const csrf = box.dataset.csrf;
  bind(document.getElementById('add-passkey'), status, async () => {
    let publicKey;
    try {
      ({ publicKey } = await call('POST', '/account/passkeys/options', {}, { csrf }));
    } catch (e) {
      if (e.code === 'confirmation_required') {
        const back = window.location.pathname + window.location.search;
        window.location.assign('/account/confirm?next=' + encodeURIComponent(back));
        return;
      }
      throw e;
    }
    const credential = await create(publicKey);
    const name = document.getElementById('passkey-name').value || 'Passkey';
    await call('POST', '/account/passkeys', { credential, name }, { csrf });
    setStatus(status, 'Passkey added.');
    window.location.reload();
  }, 'No passkey was added: ');
}
