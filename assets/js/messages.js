// What the pages' scripts say to people: the server's messages as sentences, a failed request
// in words, status and alert regions filled or emptied, and a message kept for the next page
// (after an action reloads it).

// A message as a sentence: a capital first letter and a full stop at the end. The API's
// messages are clauses ("that code is wrong or was used already; …") that clients may join.
export function sentence(text) {
  const t = String(text || '').trim();
  if (!t) return t;
  const first = t.charAt(0).toLocaleUpperCase() + t.slice(1);
  return /[.!?…]$/.test(first) ? first : first + '.';
}

// What went wrong, as the application's pages say it: for a RequestError (request.js) the
// server's message with each of its details ("… (email: not a valid address)"), or words for
// an answer without one; for any other error its message.
export function explain(err) {
  if (!err || !('said' in err)) return String((err && err.message) || err);
  if (err.said) {
    const details = err.details
      .map((d) => (d.path ? d.path + ': ' : '') + (d.message || ''))
      .filter(Boolean);
    return sentence(details.length ? err.said + ' (' + details.join('; ') + ')' : err.said);
  }
  if (err.status === 0) return err.message;
  return 'That did not work (HTTP ' + err.status + '). Reload the page and try again.';
}

// Replaces what `box` shows with one alert: `message` in `tone` (success, info or error).
export function say(box, message, tone) {
  box.textContent = '';
  const p = document.createElement('p');
  p.className = 'alert ' + (tone || 'success');
  p.textContent = message;
  box.appendChild(p);
}

// An alert region that is hidden while it has nothing to say: `message` shown, or, without
// one, the region emptied and hidden.
export function showAlert(region, message) {
  region.textContent = message || '';
  region.hidden = !message;
}

// A status region (role="status"): its words replaced.
export function setStatus(region, text) {
  region.textContent = text;
}

const FLASH = 'docket-flash';

// A message shown once on the next page load (after an action reloads the page).
export function flash(message) {
  try { sessionStorage.setItem(FLASH, message); } catch (_) { /* private mode */ }
}

// The message `flash` kept, once (null when there is none).
export function takeFlash() {
  try {
    const m = sessionStorage.getItem(FLASH);
    sessionStorage.removeItem(FLASH);
    return m;
  } catch (_) { return null; }
}
