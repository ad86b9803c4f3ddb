// What the web application's scripts share: calls to /api/v1 with the session and the page's
// X-CSRF-Token, and the server's reason for a refusal as a sentence to show.
'use strict';

window.DocketApp = (function () {
  const csrf = () => document.querySelector('meta[name=csrf-token]').content;

  function sentence(text) {
    const t = String(text).trim();
    return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? '' : '.');
  }

  // The reason in an error answer (status, body text): its message and each detail.
  function reason(status, text) {
    try {
      const body = JSON.parse(text);
      if (body && body.message) {
        const details = (body.details || [])
          .map((d) => (d.path ? d.path + ': ' : '') + (d.message || ''))
          .filter(Boolean);
        return sentence(details.length ? body.message + ' (' + details.join('; ') + ')' : body.message);
      }
    } catch (_) { /* not JSON */ }
    return 'That did not work (HTTP ' + status + '). Reload the page and try again.';
  }

  // `method` `url` with an optional JSON `body`: the JSON answer, or an Error whose message is
  // the server's reason.
  async function call(method, url, body) {
    const headers = { 'X-CSRF-Token': csrf() };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let resp;
    try {
      resp = await fetch(url, {
        method, credentials: 'same-origin', headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (_) {
      throw new Error('The server could not be reached. Check your connection and try again.');
    }
    const text = await resp.text();
    if (!resp.ok) throw new Error(reason(resp.status, text));
    return text ? JSON.parse(text) : {};
  }

  // A message shown once on the next page load (after an action reloads the page).
  function flash(message) {
    try { sessionStorage.setItem('docket-flash', message); } catch (_) { /* private mode */ }
  }

  function takeFlash() {
    try {
      const m = sessionStorage.getItem('docket-flash');
      sessionStorage.removeItem('docket-flash');
      return m;
    } catch (_) { return null; }
  }

  // A confirmation dialog (#remove-dialog and its parts): the opener shows it with the safe
  // choice focused; the confirm button runs `action` (async), whose error is shown in the
  // dialog; closing it gives the focus back to the opener.
  function confirming(action) {
    const dialog = document.getElementById('remove-dialog');
    const open = document.getElementById('remove-open');
    const confirm = document.getElementById('remove-confirm');
    const error = document.getElementById('remove-error');
    open.addEventListener('click', () => {
      error.hidden = true;
      dialog.showModal();
      document.getElementById('remove-keep').focus();
    });
    dialog.addEventListener('close', () => open.focus());
    confirm.addEventListener('click', async () => {
      confirm.disabled = true;
      error.hidden = true;
      try {
        await action(confirm);
      } catch (e) {
        error.textContent = e.message;
        error.hidden = false;
        confirm.disabled = false;
      }
    });
  }

  // Copies the value of the text box `box` (selected first, so that it can be copied by hand
  // when the clipboard is out of reach): whether the clipboard took it.
  async function copy(box) {
    box.select();
    try {
      await navigator.clipboard.writeText(box.value);
      return true;
    } catch (_) {
      return false;
    }
  }

  // Replaces what `box` shows with one alert: `message` in `tone` (success, info or error).
  function say(box, message, tone) {
    box.textContent = '';
    const p = document.createElement('p');
    p.className = 'alert ' + (tone || 'success');
    p.textContent = message;
    box.appendChild(p);
  }

  return { csrf, reason, call, flash, takeFlash, confirming, copy, say };
})();
