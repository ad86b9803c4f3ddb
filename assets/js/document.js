// The document page: copy a signing link, remind a recipient, correct a pending recipient's
// e-mail address, and cancel, delete or hide the document, each through /api/v1 with the
// page's token; the server's reason for a refusal is shown next to the action.

import { confirming, copy } from './app-ui.js';
import { explain, flash, say, takeFlash } from './messages.js';
import { call, inWorkspace } from './request.js';

const root = document.querySelector('[data-document]');
if (root) start(root);

function start(root) {
  const api = '/api/v1/documents/' + root.dataset.document;
  const notice = document.getElementById('notice');

  const flashed = takeFlash();
  if (flashed) say(notice, flashed, 'success');

  // Copy a signing link (the box is read-only and selectable as a fallback).
  document.querySelectorAll('[data-copy]').forEach((button) => {
    button.addEventListener('click', async () => {
      const ok = await copy(document.getElementById(button.dataset.copy));
      const result = button.closest('.recipient').querySelector('.action-result');
      if (result) {
        say(result, ok ? 'Link copied.' : 'Copy did not work here: the link is selected, press Ctrl+C (or Cmd+C).', ok ? 'success' : 'error');
      }
      button.textContent = ok ? 'Copied' : 'Copy link';
    });
  });

  // Remind one recipient.
  document.querySelectorAll('[data-resend]').forEach((button) => {
    button.addEventListener('click', async () => {
      const item = button.closest('.recipient');
      const result = item.querySelector('.action-result');
      const rid = Number(button.dataset.resend);
      button.disabled = true;
      try {
        const r = await call('POST', api + '/resend', { recipients: [rid] });
        if ((r.recipients || []).includes(rid)) {
          say(result, 'Reminder sent to ' + item.dataset.name + '.');
        } else {
          say(result, 'No reminder was sent: it is not ' + item.dataset.name + '\'s turn yet, or this document sends no e-mails.', 'info');
        }
      } catch (e) {
        say(result, explain(e), 'error');
      } finally {
        button.disabled = false;
      }
    });
  });

  // Correct an e-mail address: a new link, the old one dead.
  document.querySelectorAll('form[data-correct]').forEach((form) => {
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const item = form.closest('.recipient');
      const result = item.querySelector('.action-result');
      const input = form.querySelector('input[name=email]');
      const submit = form.querySelector('button[type=submit]');
      input.removeAttribute('aria-invalid');
      submit.disabled = true;
      try {
        const r = await call('PATCH', api + '/recipients/' + form.dataset.correct, { email: input.value.trim() });
        flash(item.dataset.name + '\'s address is now ' + r.email + '. They have a new signing link; the old link no longer works.');
        window.location.reload();
      } catch (err) {
        input.setAttribute('aria-invalid', 'true');
        say(result, explain(err), 'error');
        submit.disabled = false;
        input.focus();
      }
    });
  });

  // Cancel, delete or hide, after a confirmation.
  confirming(async (confirm) => {
    await call('DELETE', api);
    const outcome = confirm.dataset.outcome;
    if (outcome === 'cancelled') {
      flash('The document is cancelled. Its signing links no longer work.');
      window.location.reload();
    } else {
      flash(outcome === 'deleted' ? 'The draft was deleted.' : 'The document is hidden from your list.');
      window.location.assign(inWorkspace('/'));
    }
  });
}
