// The recipients step: the list in signing order, one compact line each (name, e-mail, role;
// how they prove who they are under "Authentication"), each editable in place (saved when a
// control changes), reordered by dragging its handle or with Move up / Move down (saved as every
// recipient's signingOrder), added and removed through the API's recipient routes. Enter goes
// to the next line (on the last, the new recipient's: adding it), and a list of addresses
// pasted into an e-mail box adds one recipient each.

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
  // Enter in the new recipient's name goes on to its address; in its address, adds it.
  form.elements.name.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') { e.preventDefault(); form.elements.email.focus(); }
  });
  for (const box of [form.elements.name, form.elements.email]) box.addEventListener('paste', (e) => pasted(e, form));
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

// A list of addresses pasted into the new recipient's boxes: one recipient each (with the
// role chosen), in the order pasted; one "Name <address>" fills both boxes. Anything else is
// pasted as usual.
async function pasted(e, form) {
  const found = addresses(e.clipboardData ? e.clipboardData.getData('text/plain') : '');
  if (!found || (found.length === 1 && !found[0].name)) return;
  e.preventDefault();
  if (found.length === 1) {
    form.elements.name.value = found[0].name || form.elements.name.value;
    form.elements.email.value = found[0].email;
    form.elements.email.focus();
    return;
  }
  problems.clear(form);
  const role = form.elements.role.value;
  let added = 0;
  await guarded(async () => {
    for (const a of found) {
      list.push(await api.addRecipient({ name: a.name, email: a.email, role, signingOrder: list.length + 1 }));
      added += 1;
    }
  }, `${found.length} recipients added.`);
  if (added) {
    form.reset();
    render();
    form.elements.name.focus();
  }
}

// The addresses in `text` ("a@b.c", "Name <a@b.c>", "\"Last, First\" <a@b.c>"), separated by
// commas, semicolons or lines; null unless every part is one.
export function addresses(text) {
  const parts = [];
  let part = '';
  let quoted = false;
  let angled = false;
  for (const c of text) {
    if (c === '"') quoted = !quoted;
    else if (c === '<') angled = true;
    else if (c === '>') angled = false;
    if (!quoted && !angled && /[,;\n\r]/.test(c)) { parts.push(part); part = ''; } else part += c;
  }
  parts.push(part);
  const found = [];
  for (const p of parts.map((x) => x.trim()).filter(Boolean)) {
    const named = /^(.*?)\s*<\s*([^\s<>@]+@[^\s<>@]+)\s*>$/.exec(p);
    if (named) found.push({ name: named[1].replace(/^"(.*)"$/, '$1').trim(), email: named[2] });
    else if (/^[^\s<>@"]+@[^\s<>@"]+$/.test(p)) found.push({ name: '', email: p });
    else return null;
  }
  return found.length ? found : null;
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

// A labelled control saved when it changes; `short` is its label on a line (the columns'
// heads name it on a wide screen, and the label stays for assistive technology).
function control(tag, attrs, label, onChange, short = false) {
  const wrap = document.createElement('div');
  wrap.className = 'field';
  const el = document.createElement(tag);
  Object.assign(el, attrs);
  const l = document.createElement('label');
  l.htmlFor = el.id;
  l.textContent = label;
  if (short) l.className = 'row-label';
  el.addEventListener('change', () => onChange(el));
  wrap.append(l, el);
  return [wrap, el];
}

function options(select, map, chosen) {
  for (const [value, text] of Object.entries(map)) select.add(new Option(text, value, false, value === chosen));
}

// Enter in a line's name or address: on to the next line's name (the new recipient's after
// the last); the change is saved as the box is left.
function onToNext(e) {
  if (e.key !== 'Enter' || !(e.target instanceof HTMLInputElement)) return;
  e.preventDefault();
  const li = e.target.closest('li');
  const next = li.nextElementSibling;
  (next ? next.querySelector('input') : document.getElementById('new-name')).focus();
}

function item(r, i) {
  const li = document.createElement('li');
  li.className = 'recipient';
  li.dataset.id = r.id;
  li.style.setProperty('--who', colourOf(list, r.id));
  const row = document.createElement('div');
  row.className = 'recipient-row';
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
  title.className = 'recipient-number';
  const name = document.createElement('span');
  name.className = 'who-name';
  name.textContent = nameOf(r);
  title.append(swatch(list, r), ` ${i + 1}. `, name);
  const actions = document.createElement('div');
  actions.className = 'row-actions';
  const mk = (text, cls, label, fn, disabled) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `button small ${cls}`;
    b.textContent = text;
    b.setAttribute('aria-label', label);
    b.title = label;
    b.disabled = disabled;
    b.addEventListener('click', fn);
    return b;
  };
  const who = nameOf(r);
  actions.append(
    mk('↑', 'secondary move-up', `Move up ${who}`, () => move(i, i - 1), i === 0),
    mk('↓', 'secondary move-down', `Move down ${who}`, () => move(i, i + 1), i === list.length - 1),
    mk('✕', 'ghost danger-text', `Remove ${who}`, () => remove(r), false),
  );
  const [nameW] = control('input', { id: `r${r.id}-name`, type: 'text', value: r.name, maxLength: 200, enterKeyHint: 'next' }, `Name of recipient ${i + 1}`, (el) => change(r, { name: el.value.trim() }), true);
  const placeholder = template ? 'Given when used' : '';
  const [mailW, mail] = control('input', { id: `r${r.id}-email`, type: 'email', value: emailOf(r), maxLength: 254, placeholder, enterKeyHint: 'next' }, `E-mail of recipient ${i + 1}${template ? ' (optional)' : ''}`, (el) => change(r, { email: el.value.trim() }), true);
  mail.addEventListener('paste', (e) => {
    // A list pasted here: the first address for this line, the others as new lines.
    const found = addresses(e.clipboardData ? e.clipboardData.getData('text/plain') : '');
    if (!found || found.length < 2) return;
    e.preventDefault();
    const [first, ...rest] = found;
    mail.value = first.email;
    change(r, first.name && !r.name ? { email: first.email, name: first.name } : { email: first.email });
    const form = document.getElementById('add-recipient');
    const dt = new DataTransfer();
    dt.setData('text/plain', rest.map((a) => (a.name ? `"${a.name}" <${a.email}>` : a.email)).join('\n'));
    pasted(new ClipboardEvent('paste', { clipboardData: dt }), form);
  });
  const [roleW, role] = control('select', { id: `r${r.id}-role` }, `Role of recipient ${i + 1}`, (el) => change(r, { role: el.value }), true);
  options(role, ROLES, r.role);
  row.append(handle, title, nameW, mailW, roleW, actions);
  row.addEventListener('keydown', onToNext);
  const auth = r.authOptions || {};
  const [accessW, access] = control('select', { id: `r${r.id}-access` }, 'To open the document', (el) => change(r, { authOptions: { accessAuth: el.value ? [el.value] : [], actionAuth: r.authOptions.actionAuth } }));
  options(access, { '': 'As the document says', ...ACCESS }, (auth.accessAuth || [])[0] || '');
  const [actionW, action] = control('select', { id: `r${r.id}-action` }, 'To sign, proves who they are with', (el) => change(r, { authOptions: { accessAuth: r.authOptions.accessAuth, actionAuth: el.value ? [el.value] : [] } }));
  options(action, ACTION, (auth.actionAuth || [])[0] || '');
  const more = document.createElement('details');
  more.className = 'recipient-advanced';
  const summary = document.createElement('summary');
  const own = (auth.accessAuth || []).length || (auth.actionAuth || []).length;
  summary.textContent = own ? 'Authentication (own rules)' : 'Authentication';
  summary.setAttribute('aria-label', `Authentication of ${who}`);
  const grid = document.createElement('div');
  grid.className = 'grid-2';
  grid.append(accessW, actionW);
  more.append(summary, grid);
  li.append(row, more);
  return li;
}

function render() {
  const ol = document.getElementById('recipient-list');
  ol.replaceChildren(...list.map(item));
  document.getElementById('no-recipients').hidden = list.length > 0;
}
