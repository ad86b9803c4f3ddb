// The settings pages (API tokens, webhooks): copy a token or a secret shown once, ask before a
// revocation or a deletion (forms with data-confirm), and offer the date box of a token's
// expiry only when "On a date I choose" is picked, a webhook's event boxes only when "Only the
// events I choose" is. Every form still posts without script.

import { copy } from './app-ui.js';

document.querySelectorAll('[data-copy]').forEach((button) => {
  const label = button.textContent;
  button.addEventListener('click', async () => {
    const id = button.dataset.copy;
    const ok = await copy(document.getElementById(id));
    const said = document.querySelector('[data-copied-for="' + id + '"]');
    if (said) {
      said.textContent = ok
        ? 'Copied to the clipboard.'
        : 'Copying did not work here: the text is selected, press Ctrl+C (or Cmd+C).';
      said.className = 'set-copied small ' + (ok ? 'ok' : 'error-text');
    }
    button.textContent = ok ? 'Copied' : label;
  });
});

const dialog = document.getElementById('confirm-dialog');
if (dialog) {
  let pending = null;
  document.querySelectorAll('form[data-confirm]').forEach((form) => {
    form.addEventListener('submit', (event) => {
      if (form.dataset.confirmed === 'yes') return;
      event.preventDefault();
      pending = form;
      document.getElementById('confirm-title').textContent = form.dataset.confirmButton + '?';
      document.getElementById('confirm-text').textContent = form.dataset.confirm;
      document.getElementById('confirm-yes').textContent = form.dataset.confirmButton;
      dialog.returnValue = '';
      dialog.showModal();
    });
  });
  dialog.addEventListener('close', () => {
    const form = pending;
    pending = null;
    if (form && dialog.returnValue === 'yes') {
      form.dataset.confirmed = 'yes';
      form.requestSubmit();
    }
  });
}

// A part of a form that matters for one choice of the radios `name` only, shown then:
// `focus` (if any) gets the focus when that choice is made.
function only(name, value, part, focus) {
  if (!part) return;
  const radios = document.querySelectorAll('input[name=' + name + ']');
  const sync = () => {
    const chosen = document.querySelector('input[name=' + name + ']:checked');
    part.hidden = !(chosen && chosen.value === value);
  };
  radios.forEach((r) => r.addEventListener('change', () => {
    sync();
    if (focus && r.checked && r.value === value) focus.focus();
  }));
  sync();
}
// The expiry's date box, for "On a date I choose"; the webhook's event boxes, for "Only
// the events I choose".
only('expiry', 'date', document.querySelector('.set-date'), document.getElementById('token-date'));
only('events', 'some', document.getElementById('event-choices'));
