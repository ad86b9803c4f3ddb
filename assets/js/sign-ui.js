// What the signing page's scripts share: a modal dialog with a form that shows why what it sent
// was refused.

import { el } from './dom.js';
import { sentence, showAlert } from './messages.js';
import { t } from './i18n.js';

// A modal dialog with a form; `build` adds the inputs and returns a function giving the
// value; `onSubmit(value)` may throw, and the dialog then stays open with the message.
// `clear` (optional): a "Clear" button that empties what the dialog fills, then closes it.
export function dialog(title, build, onSubmit, okLabel, { clear } = {}) {
  const d = el('dialog', { class: 'sign-dialog', 'aria-labelledby': 'dialog-title' });
  const form = el('form', { method: 'dialog', class: 'stack' });
  const error = el('p', { class: 'alert error', role: 'alert', hidden: true });
  form.append(el('h2', { id: 'dialog-title' }, title));
  const value = build(form);
  form.append(error);
  const ok = el('button', { type: 'submit', class: 'button primary' }, okLabel || t('script-save'));
  const cancel = el('button', { type: 'button', class: 'button', onclick: () => d.close() }, t('script-cancel'));
  const actions = el('div', { class: 'form-actions' }, ok, cancel);
  if (clear) {
    actions.append(el('button', { type: 'button', class: 'button danger-outline', id: 'clear-field', onclick: async () => {
      showAlert(error, null);
      try {
        await clear();
        d.close();
      } catch (e) {
        showAlert(error, sentence(e.message));
      }
    } }, t('script-clear-field')));
  }
  form.append(actions);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showAlert(error, null);
    try {
      await onSubmit(value());
      d.close();
    } catch (e) {
      showAlert(error, sentence(e.message));
    }
  });
  d.addEventListener('close', () => d.remove());
  d.append(form);
  document.body.append(d);
  d.showModal();
  const first = form.querySelector('input, textarea, select, canvas');
  if (first) first.focus();
}

