// The templates list and a template's details page: the message an action left for this page,
// copying the template's and its recipients' ids, Duplicate (POST .../duplicate) and Delete
// after a confirmation (DELETE), both through /api/v1 with the page's token; the server's
// reason for a refusal is shown next to the action.
'use strict';

(function () {
  const app = window.DocketApp;
  const notice = document.getElementById('notice');

  const flashed = app.takeFlash();
  if (flashed && notice) app.say(notice, flashed, 'success');

  const root = document.querySelector('[data-template]');
  if (!root) return;
  const api = '/api/v1/templates/' + root.dataset.template;

  // Copy an id (the box is read-only and selectable as a fallback).
  document.querySelectorAll('[data-copy]').forEach((button) => {
    button.addEventListener('click', async () => {
      const box = document.getElementById(button.dataset.copy);
      box.select();
      let ok = false;
      try {
        await navigator.clipboard.writeText(box.value);
        ok = true;
      } catch (_) {
        ok = false;
      }
      const result = button.closest('.recipient, .card').querySelector('.action-result');
      app.say(result, ok ? 'Copied ' + box.value + '.' : 'Copy did not work here: the ID is selected, press Ctrl+C (or Cmd+C).', ok ? 'success' : 'error');
    });
  });

  // Duplicate: the copy's details page.
  const duplicate = document.getElementById('duplicate-template');
  duplicate.addEventListener('click', async () => {
    duplicate.disabled = true;
    try {
      const copy = await app.call('POST', api + '/duplicate');
      app.flash('Template duplicated: this is the copy, “' + copy.title + '”.');
      window.location.assign('/templates/' + copy.id);
    } catch (e) {
      app.say(notice, e.message, 'error');
      duplicate.disabled = false;
    }
  });

  // Delete, after a confirmation.
  app.confirming(async () => {
    const gone = await app.call('DELETE', api);
    app.flash('The template “' + gone.title + '” was deleted.');
    window.location.assign('/templates');
  });
})();
