// The templates list and a template's details page: the message an action left for this page,
// copying the template's and its recipients' ids, Duplicate (POST .../duplicate), Delete after
// a confirmation (DELETE), and the direct link (PUT .../direct-link: on with the chosen signer,
// off, or a new token after a confirmation), all through /api/v1 with the page's token; the
// server's reason for a refusal is shown next to the action.

import { confirming, copy } from './app-ui.js';
import { explain, flash, say, showAlert, takeFlash } from './messages.js';
import { call, inWorkspace } from './request.js';

const notice = document.getElementById('notice');
const flashed = takeFlash();
if (flashed && notice) say(notice, flashed, 'success');

const root = document.querySelector('[data-template]');
if (root) start(root);

function start(root) {
  const api = '/api/v1/templates/' + root.dataset.template;

  // Copy an id (the box is read-only and selectable as a fallback).
  document.querySelectorAll('[data-copy]').forEach((button) => {
    button.addEventListener('click', async () => {
      const box = document.getElementById(button.dataset.copy);
      const ok = await copy(box);
      const result = button.closest('.recipient, .card').querySelector('.action-result');
      say(result, ok ? 'Copied ' + box.value + '.' : 'Copy did not work here: the ID is selected, press Ctrl+C (or Cmd+C).', ok ? 'success' : 'error');
    });
  });

  // Duplicate: the copy's details page.
  const duplicate = document.getElementById('duplicate-template');
  duplicate.addEventListener('click', async () => {
    duplicate.disabled = true;
    try {
      const made = await call('POST', api + '/duplicate');
      flash('Template duplicated: this is the copy, “' + made.title + '”.');
      window.location.assign(inWorkspace('/templates/' + made.id));
    } catch (e) {
      say(notice, explain(e), 'error');
      duplicate.disabled = false;
    }
  });

  // The direct link: each change reloads the page, which shows the link as it now is.
  const directResult = document.querySelector('#direct-section .action-result');
  async function setDirect(body, done, button) {
    if (button) button.disabled = true;
    try {
      await call('PUT', api + '/direct-link', body);
      flash(done);
      window.location.reload();
    } catch (e) {
      say(directResult, explain(e), 'error');
      if (button) button.disabled = false;
      throw e;
    }
  }
  const directForm = document.getElementById('direct-form');
  if (directForm) {
    directForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const recipientId = Number(document.getElementById('direct-recipient').value);
      setDirect({ enabled: true, recipientId }, 'The direct link is on: copy it below and share it.',
        document.getElementById('direct-on')).catch(() => {});
    });
  }
  const directOff = document.getElementById('direct-off');
  if (directOff) {
    directOff.addEventListener('click', () => {
      setDirect({ enabled: false }, 'The direct link is off: its address no longer works.', directOff)
        .catch(() => {});
    });
  }
  const rotate = document.getElementById('direct-rotate');
  const rotateDialog = document.getElementById('rotate-dialog');
  if (rotate && rotateDialog) {
    rotate.addEventListener('click', () => rotateDialog.showModal());
    const confirmRotate = document.getElementById('rotate-confirm');
    confirmRotate.addEventListener('click', () => {
      setDirect({ newToken: true }, 'A new link was made; the old one no longer works.', confirmRotate)
        .catch((e) => showAlert(document.getElementById('rotate-error'), explain(e)));
    });
  }

  // Delete, after a confirmation.
  confirming(async () => {
    const gone = await call('DELETE', api);
    flash('The template “' + gone.title + '” was deleted.');
    window.location.assign(inWorkspace('/templates'));
  });
}
