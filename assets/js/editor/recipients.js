// The recipients step: the list in signing order, each editable in place (saved when a control
// changes), reordered by dragging its handle or with Move up / Move down (saved as every
// recipient's signingOrder), added and removed through the API's recipient routes.

import { finishBeforeLeaving, showError, status } from './status.js';
import { ROLES, colourOf, emailOf, nameOf, ordered, swatch } from './people.js';
import * as problems from './problems.js';
import { dragToReorder } from './reorder.js';

const ACCESS = { ACCOUNT: 'Signed in to an account with their address', TWO_FACTOR_AUTH: 'An authenticator code' };
const ACTION = { '': 'As the document says', ACCOUNT: 'Their account', PASSKEY: 'A passkey', TWO_FACTOR_AUTH: 'An authenticator code', PASSWORD: 'Their account password', EXPLICIT_NONE: 'Nothing more than the link' };

let api;
let template = false;
let list = [];
// The changes being saved, one after the other.
let saving = Promise.resolve(true);

export async function init(subjectApi, ctx) {
  api = subjectApi;
  template = ctx.kind === 'template';
  const doc = await api.load();
  list = ordered(doc.recipients);
  render();
  const form = document.getElementById('add-recipient');
  form.addEventListener('submit', (e) => { e.preventDefault(); add(form); });
  dragToReorder(document.getElementById('recipient-list'), (from, to) => move(from, to));
  finishBeforeLeaving(() => saving);
}

// Runs `work` after the changes before it; `done` is said once it is saved.
function guarded(work, done) {
  saving = saving.then(() => attempt(work, done));
  return saving;
}

async function attempt(work, done) {
  showError(null);
  status('Saving…');
  try {
    await work();
    status(done);
    return true;
  } catch (err) {
    status('');
    showError(err);
    return false;
  }
}

async function add(form) {
  problems.clear(form);
  const body = { name: form.elements.name.value.trim(), email: form.elements.email.value.trim(), role: form.elements.role.value, signingOrder: list.length + 1 };
  const ok = await guarded(async () => {
    try {
      list.push(await api.addRecipient(body));
    } catch (err) {
      const byName = { email: 'new-email', name: 'new-name', role: 'new-role' };
      err.details.forEach((d) => { const el = document.getElementById(byName[d.path]); if (el) el.dataset.path = d.path; });
      problems.place(form, err.details);
      throw err;
    }
  }, `${body.name || body.email || 'A recipient'} added.`);
  if (ok) {
    form.reset();
    render();
    form.elements.name.focus();
  }
}

// Moves the recipient at `from` to `to` and saves everyone's order.
async function move(from, to) {
  if (to < 0 || to >= list.length || from === to) return;
  const [r] = list.splice(from, 1);
  list.splice(to, 0, r);
  render();
  const button = document.querySelector(`#recipient-list li[data-id="${r.id}"] .move-${to < from ? 'up' : 'down'}`);
  (button && !button.disabled ? button : document.querySelector(`#recipient-list li[data-id="${r.id}"] .handle`)).focus();
  await guarded(async () => {
    for (const [i, x] of list.entries()) {
      if (x.signingOrder !== i + 1) Object.assign(x, await api.patchRecipient(x.id, { signingOrder: i + 1 }));
    }
  }, `${nameOf(r)} is now number ${to + 1} of ${list.length}.`);
}

async function change(r, body) {
  await guarded(async () => { Object.assign(r, await api.patchRecipient(r.id, body)); }, 'Saved.');
}

async function remove(r) {
  if (!window.confirm(`Remove ${nameOf(r)} and their fields?`)) return;
  const ok = await guarded(() => api.deleteRecipient(r.id), `${nameOf(r)} removed.`);
  if (ok) {
    list = list.filter((x) => x !== r);
    render();
    document.getElementById('new-name').focus();
  }
}

function control(tag, attrs, label, onChange) {
  const wrap = document.createElement('div');
  wrap.className = 'field';
  const el = document.createElement(tag);
  Object.assign(el, attrs);
  const l = document.createElement('label');
  l.htmlFor = el.id;
  l.textContent = label;
  el.addEventListener('change', () => onChange(el));
  wrap.append(l, el);
  return [wrap, el];
}

function options(select, map, chosen) {
  for (const [value, text] of Object.entries(map)) select.add(new Option(text, value, false, value === chosen));
}

function item(r, i) {
  const li = document.createElement('li');
  li.className = 'recipient card';
  li.dataset.id = r.id;
  li.style.setProperty('--who', colourOf(list, r.id));
  const head = document.createElement('div');
  head.className = 'row recipient-head';
  const handle = document.createElement('button');
  handle.type = 'button';
  handle.className = 'handle button ghost small';
  handle.textContent = '⠿';
  handle.setAttribute('aria-label', `Drag to reorder ${nameOf(r)}, number ${i + 1}`);
  handle.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowUp') { e.preventDefault(); move(i, i - 1); }
    if (e.key === 'ArrowDown') { e.preventDefault(); move(i, i + 1); }
  });
  const title = document.createElement('strong');
  title.append(swatch(list, r), ` ${i + 1}. ${nameOf(r)}`);
  const actions = document.createElement('div');
  actions.className = 'row recipient-actions';
  const mk = (text, cls, label, fn, disabled) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `button small ${cls}`;
    b.textContent = text;
    b.setAttribute('aria-label', label);
    b.disabled = disabled;
    b.addEventListener('click', fn);
    return b;
  };
  const who = nameOf(r);
  actions.append(
    mk('Move up', 'secondary move-up', `Move up ${who}`, () => move(i, i - 1), i === 0),
    mk('Move down', 'secondary move-down', `Move down ${who}`, () => move(i, i + 1), i === list.length - 1),
    mk('Remove', 'ghost danger-text', `Remove ${who}`, () => remove(r), false),
  );
  head.append(handle, title, actions);
  const grid = document.createElement('div');
  grid.className = 'grid-3';
  const [nameW] = control('input', { id: `r${r.id}-name`, type: 'text', value: r.name, maxLength: 200 }, 'Name', (el) => change(r, { name: el.value.trim() }));
  const placeholder = template ? 'Given when the template is used' : '';
  const [mailW] = control('input', { id: `r${r.id}-email`, type: 'email', value: emailOf(r), maxLength: 254, placeholder }, template ? 'E-mail (optional)' : 'E-mail', (el) => change(r, { email: el.value.trim() }));
  const [roleW, role] = control('select', { id: `r${r.id}-role` }, 'Role', (el) => change(r, { role: el.value }));
  options(role, ROLES, r.role);
  grid.append(nameW, mailW, roleW);
  const auth = r.authOptions || {};
  const [accessW, access] = control('select', { id: `r${r.id}-access` }, 'To open the document', (el) => change(r, { authOptions: { accessAuth: el.value ? [el.value] : [], actionAuth: r.authOptions.actionAuth } }));
  options(access, { '': 'As the document says', ...ACCESS }, (auth.accessAuth || [])[0] || '');
  const [actionW, action] = control('select', { id: `r${r.id}-action` }, 'To sign, proves who they are with', (el) => change(r, { authOptions: { accessAuth: r.authOptions.accessAuth, actionAuth: el.value ? [el.value] : [] } }));
  options(action, ACTION, (auth.actionAuth || [])[0] || '');
  const more = document.createElement('div');
  more.className = 'grid-2';
  more.append(accessW, actionW);
  li.append(head, grid, more);
  return li;
}

function render() {
  const ol = document.getElementById('recipient-list');
  ol.replaceChildren(...list.map(item));
  document.getElementById('no-recipients').hidden = list.length > 0;
}
