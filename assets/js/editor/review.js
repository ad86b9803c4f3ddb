// The review step: what will be sent (the settings that matter, the recipients in order with
// what each will be asked to fill in, page by page, and the pages with every field drawn in its
// recipient's colour, which can show one recipient's alone), then Send. A refusal is the API's own: each of its details (a JSON path into
// the document) is shown next to the recipient or setting it names, with a link to the step
// that fixes it.

import { showError, status } from './status.js';
import { createCanvas } from './canvas.js';
import { ROLES, colourOf, emailOf, nameOf, ordered, swatch } from './people.js';
import { TYPE_LABELS } from './properties.js';

let api; let ctx; let doc;

export async function init(subjectApi, context) {
  api = subjectApi;
  ctx = context;
  const button = document.getElementById('send');
  button.addEventListener('click', send);
  doc = await api.load();
  render();
  // Disabled in the page until now: a press before this script ran would do nothing.
  button.disabled = false;
}

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

function render() {
  const root = document.getElementById('review');
  const m = doc.meta;
  const settings = el('dl', 'summary');
  const template = ctx.kind === 'template';
  const facts = [
    ['Title', doc.title],
    ['Signing order', m.signingOrder === 'SEQUENTIAL' ? 'One after the other' : 'All at once'],
    ['E-mail subject', m.subject || 'The default subject'],
  ];
  if (!template) facts.splice(2, 0, ['Links', m.distributionMethod === 'NONE' ? 'You hand them out (no e-mail to recipients)' : 'E-mailed by Docket']);
  for (const [k, v] of facts) settings.append(el('dt', '', k), el('dd', '', v));
  settings.dataset.path = 'meta';
  const settingsBox = el('section', 'stack tight');
  const sh = el('h3', '', 'Settings');
  settingsBox.append(sh, settings, link('settings', 'Change the settings'));
  const people = el('section', 'stack tight');
  people.append(el('h3', '', 'Recipients and their fields'));
  const ol = el('ol', 'review-recipients');
  ol.dataset.path = 'recipients';
  for (const r of ordered(doc.recipients)) {
    const li = el('li', 'review-recipient');
    li.dataset.path = `recipients[${doc.recipients.indexOf(r)}]`;
    const head = el('p', 'review-who');
    head.append(swatch(doc.recipients, r), ` ${nameOf(r)} `, el('span', 'muted small', `${emailOf(r) || 'E-mail given when used'} · ${ROLES[r.role] || r.role}`));
    li.append(head, asked(r));
    ol.append(li);
  }
  if (!doc.recipients.length) ol.append(el('li', 'muted', 'No recipients yet.'));
  const links = el('p', 'row');
  links.append(link('recipients', 'Change the recipients'), link('fields', 'Change the fields'));
  people.append(ol, links);
  const where = pagesBox();
  const notes = warnings();
  if (notes.length) {
    const box = el('div', 'alert');
    box.setAttribute('role', 'note');
    const ul = el('ul', 'review-notes');
    for (const n of notes) ul.append(el('li', '', n));
    box.append(el('p', '', template ? 'Before you save:' : 'Before you send:'), ul);
    root.replaceChildren(box, settingsBox, people, where);
  } else {
    root.replaceChildren(settingsBox, people, where);
  }
  drawPages(where);
}

// What a field asks, as the sender named it: `Text "Company"`.
const what = (f) => {
  const label = f.fieldMeta && f.fieldMeta.label;
  return `${TYPE_LABELS[f.type] || f.type}${label ? ` “${label}”` : ''}`;
};

// Recipient `r`'s fields, page by page, from the top: "Page 1: Signature, Text “Company”".
function asked(r) {
  const mine = doc.fields.filter((f) => f.recipientId === r.id)
    .sort((a, b) => (a.pageNumber - b.pageNumber) || (a.pageY - b.pageY) || (a.pageX - b.pageX));
  if (!mine.length) return el('p', 'small', 'No fields');
  const ul = el('ul', 'review-fields small');
  ul.setAttribute('aria-label', `What ${nameOf(r)} is asked`);
  const pages = [...new Set(mine.map((f) => f.pageNumber))];
  for (const n of pages) {
    const li = el('li');
    li.append(el('span', 'review-page', `Page ${n}: `), mine.filter((f) => f.pageNumber === n).map(what).join(', '));
    ul.append(li);
  }
  return ul;
}

// The pages with the fields, and a choice of whose to show.
function pagesBox() {
  const box = el('section', 'stack tight review-pages');
  box.setAttribute('aria-labelledby', 'review-pages-h');
  const h = el('h3', '', 'Where the fields are');
  h.id = 'review-pages-h';
  box.append(h);
  if (!ctx.sizes.length) {
    box.append(el('p', 'muted', 'No PDF has been uploaded yet.'));
    return box;
  }
  const who = ordered(doc.recipients).filter((r) => doc.fields.some((f) => f.recipientId === r.id));
  if (who.length > 1) {
    const field = el('div', 'field');
    const label = el('label', '', 'Show the fields of');
    label.htmlFor = 'review-filter';
    const select = el('select');
    select.id = 'review-filter';
    select.add(new Option('Everyone', ''));
    for (const r of who) select.add(new Option(nameOf(r), String(r.id)));
    select.addEventListener('change', () => {
      box.querySelectorAll('.ed-field').forEach((b) => { b.hidden = select.value !== '' && b.dataset.recipient !== select.value; });
    });
    field.append(label, select);
    box.append(field);
  }
  const legend = el('ul', 'legend small');
  legend.setAttribute('aria-label', 'Recipients\' colours');
  legend.append(...who.map((r) => {
    const li = el('li');
    li.append(swatch(doc.recipients, r), ` ${nameOf(r)}`);
    return li;
  }));
  const pages = el('div', 'ed-pages');
  pages.id = 'review-pages';
  box.append(legend, pages);
  return box;
}

function drawPages(box) {
  const pages = box.querySelector('#review-pages');
  if (!pages) return;
  const canvas = createCanvas(pages, {
    sizes: ctx.sizes,
    pageUrl: (n, w) => `${ctx.pages}/${n}.png?w=${w}`,
    readOnly: true,
    describe: (f) => ({
      label: `${what(f)} · ${nameOf(doc.recipients.find((r) => r.id === f.recipientId))}`,
      colour: colourOf(doc.recipients, f.recipientId),
      filled: false,
    }),
  });
  doc.fields.forEach(canvas.draw);
}

// What the sender may want to know; never a rule (the API says what refuses a send).
function warnings() {
  const notes = [];
  if (ctx.kind !== 'template' && doc.meta.distributionMethod === 'NONE') {
    notes.push('Recipients get no e-mail: after sending, copy each signing link from the document page and hand it out.');
  }
  const idle = doc.recipients.filter((r) => r.role !== 'CC' && r.role !== 'VIEWER' && !doc.fields.some((f) => f.recipientId === r.id));
  for (const r of idle) notes.push(`${nameOf(r)} has no fields to fill in.`);
  if (doc.meta.signingOrder === 'SEQUENTIAL' && doc.recipients.length > 1) {
    notes.push(`Recipients sign one after the other, starting with ${nameOf(ordered(doc.recipients)[0])}.`);
  }
  return notes;
}

function link(step, text, extra = '') {
  const a = el('a', 'small', text);
  a.href = `${ctx.edit}?step=${step}${extra}`;
  return a;
}

// The step (and link text) that fixes what `path` names.
function fixFor(path) {
  const field = /^fields\[(\d+)\]/.exec(path);
  if (field) {
    const f = doc.fields[Number(field[1])];
    return link('fields', 'Fix this field', f ? `&field=${f.id}` : '');
  }
  const who = /^recipients\[(\d+)\](.*)$/.exec(path);
  if (who) {
    const r = doc.recipients[Number(who[1])];
    if (who[2] === '') return link('fields', `Place fields for ${nameOf(r)}`);
    return link('recipients', `Change ${nameOf(r)}`);
  }
  if (path.startsWith('recipients')) return link('recipients', 'Add recipients');
  return link('settings', 'Change the settings');
}

// Puts each problem next to what it names (the recipient, the field's recipient, the list).
function show(err) {
  const box = document.getElementById('send-problems');
  document.querySelectorAll('.review-problem').forEach((p) => p.remove());
  box.replaceChildren(el('p', '', `${ctx.kind === 'template' ? 'Not saved' : 'Not sent'}: ${err.message}`));
  for (const d of err.details) {
    const field = /^fields\[(\d+)\]/.exec(d.path);
    let path = d.path;
    if (field) {
      const f = doc.fields[Number(field[1])];
      path = f ? `recipients[${doc.recipients.findIndex((r) => r.id === f.recipientId)}]` : 'recipients';
    }
    const target = document.querySelector(`[data-path="${CSS.escape(path.replace(/\.[^[\]]*$/, ''))}"]`) || document.querySelector(`[data-path="${CSS.escape(path)}"]`) || box;
    const p = el('p', 'review-problem error-text', `${d.message}. `);
    p.append(fixFor(d.path));
    target.append(p);
  }
  box.hidden = false;
  box.focus();
}

async function send() {
  if (!doc) return;
  const button = document.getElementById('send');
  const template = ctx.kind === 'template';
  button.disabled = true;
  showError(null);
  status(template ? 'Saving…' : 'Sending…');
  try {
    await api.send();
    status(template ? 'Template saved.' : 'Sent.');
    window.location.href = ctx.done;
  } catch (err) {
    status('');
    if (err.details.length || err.status === 400) show(err); else showError(err);
    doc = await api.load().catch(() => doc);
    button.disabled = false;
  }
}
