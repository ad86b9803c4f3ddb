// WebAuthn in and out of JSON, for the pages that use passkeys (account, login, signing): the
// server sends PublicKeyCredential*OptionsJSON and takes the credential's toJSON() back (the
// calls themselves are request.js's).

import { setStatus } from './messages.js';

const b64u = {
  decode(s) {
    const b = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
    return Uint8Array.from(b, (c) => c.charCodeAt(0)).buffer;
  },
  encode(buf) {
    let s = '';
    for (const byte of new Uint8Array(buf)) s += String.fromCharCode(byte);
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  },
};

// Browsers without the JSON helpers of WebAuthn level 3 get the same by hand.
function creationOptions(json) {
  if (PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  const o = { ...json, challenge: b64u.decode(json.challenge), user: { ...json.user, id: b64u.decode(json.user.id) } };
  o.excludeCredentials = (json.excludeCredentials || []).map((c) => ({ ...c, id: b64u.decode(c.id) }));
  return o;
}

function requestOptions(json) {
  if (PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  const o = { ...json, challenge: b64u.decode(json.challenge) };
  o.allowCredentials = (json.allowCredentials || []).map((c) => ({ ...c, id: b64u.decode(c.id) }));
  return o;
}

function toJSON(cred) {
  if (typeof cred.toJSON === 'function') return cred.toJSON();
  const r = cred.response;
  const out = { id: cred.id, rawId: b64u.encode(cred.rawId), type: cred.type,
    authenticatorAttachment: cred.authenticatorAttachment || null,
    clientExtensionResults: cred.getClientExtensionResults(), response: {} };
  out.response.clientDataJSON = b64u.encode(r.clientDataJSON);
  if (r.attestationObject) {
    out.response.attestationObject = b64u.encode(r.attestationObject);
    out.response.transports = r.getTransports ? r.getTransports() : [];
  } else {
    out.response.authenticatorData = b64u.encode(r.authenticatorData);
    out.response.signature = b64u.encode(r.signature);
    out.response.userHandle = r.userHandle ? b64u.encode(r.userHandle) : null;
  }
  return out;
}

export const supported = () => !!(window.PublicKeyCredential && navigator.credentials);

// Runs `action` when `button` is pressed, saying in `status` what happens; `failed` prefixes an
// error. Without WebAuthn in this browser the button is off and says why.
export function bind(button, status, action, failed) {
  if (!supported()) {
    button.disabled = true;
    setStatus(status, 'This browser cannot use passkeys.');
    return;
  }
  button.addEventListener('click', async () => {
    button.disabled = true;
    setStatus(status, 'Follow your browser\u2019s prompt\u2026');
    try {
      await action();
    } catch (e) {
      setStatus(status, failed + e.message);
      button.disabled = false;
    }
  });
}

// A new credential for `publicKey` (creation options JSON), as JSON.
export async function create(publicKey) {
  const cred = await navigator.credentials.create({ publicKey: creationOptions(publicKey) });
  return toJSON(cred);
}

// An assertion for `publicKey` (request options JSON), as JSON.
export async function get(publicKey) {
  const cred = await navigator.credentials.get({ publicKey: requestOptions(publicKey) });
  return toJSON(cred);
}
