// What the signing page's scripts share: building elements, and a modal dialog with a form
// that shows why what it sent was refused.

import { sentence, showAlert } from './messages.js';

// An element `tag` with `attrs` (`class`, `style` as an object, `on…` listeners, other
// attributes; true is present, null, undefined and false absent) and `children` (nodes or text).
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    // Styles through the CSSOM: the page's CSP allows no inline style attributes.
    else if (k === 'style') Object.assign(e.style, v);
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) e.append(c.nodeType ? c : String(c));
  }
  return e;
}

// A modal dialog with a form; `build` adds the inputs and returns a function giving the
// value; `onSubmit(value)` may throw, and the dialog then stays open with the message.
export function dialog(title, build, onSubmit, okLabel) {
  const d = el('dialog', { class: 'sign-dialog', 'aria-labelledby': 'dialog-title' });
  const form = el('form', { method: 'dialog', class: 'stack' });
  const error = el('p', { class: 'alert error', role: 'alert', hidden: true });
  form.append(el('h2', { id: 'dialog-title' }, title));
  const value = build(form);
  form.append(error);
  const ok = el('button', { type: 'submit', class: 'button primary' }, okLabel || 'Save');
  const cancel = el('button', { type: 'button', class: 'button', onclick: () => d.close() }, 'Cancel');
  form.append(el('div', { class: 'form-actions' }, ok, cancel));
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

