// The editor's status line and error box, and its links that wait for what is being saved.

import { setStatus, showAlert } from '../messages.js';

// Says `text` in the status line (#editor-status).
export function status(text) {
  const el = document.getElementById('editor-status');
  if (el) setStatus(el, text);
}

// Shows `err`'s message in the error box (#editor-error), or empties and hides it (no `err`).
export function showError(err) {
  const box = document.getElementById('editor-error');
  if (box) showAlert(box, err ? err.message || String(err) : null);
}

// Links wait for the changes still being saved (`idle()` resolves once they are), so that
// leaving the step loses nothing; an `idle()` that answers false could not save, and the page
// stays where the step shows why. While `pending()` says something typed is not saved yet,
// closing or reloading the page asks first.
export function finishBeforeLeaving(idle, pending = () => false) {
  document.addEventListener('click', async (e) => {
    const a = e.target.closest && e.target.closest('a[href]');
    if (!a || e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    if (a.target || a.hasAttribute('download')) return;
    e.preventDefault();
    status('Saving…');
    if ((await idle()) === false) return;
    window.location.href = a.href;
  });
  window.addEventListener('beforeunload', (e) => {
    if (!pending()) return;
    e.preventDefault();
    e.returnValue = '';
  });
}
