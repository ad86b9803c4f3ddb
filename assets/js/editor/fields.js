// The fields step: the palette (drag a type onto a page, or press it to add it in the middle of
// what is seen of the page most in view), the pages with their fields (canvas.js), the properties of the selected field
// (properties.js); every change is saved through the API's field routes as it is made, and
// can be undone (undo.js), the undo saving the previous state again.

import { finishBeforeLeaving, showError, status } from './status.js';
import { createCanvas, geometry } from './canvas.js';
import { colourOf, describe, nameOf, ordered, swatch } from './people.js';
import { propertiesPanel, TYPE_LABELS } from './properties.js';
import { undoStack } from './undo.js';
import { inWorkspace } from '../request.js';

// A new field's size in points, by type.
const SIZES = { SIGNATURE: [160, 48], FREE_SIGNATURE: [160, 48], INITIALS: [64, 36], CHECKBOX: [120, 48], RADIO: [120, 48] };
const CHOICES = ['RADIO', 'CHECKBOX', 'SELECT', 'DROPDOWN'];

let api; let ctx; let canvas; let undo; let panel;
let recipients = [];
let fields = [];

const pct = (pts, page, axis) => (pts * 100) / ctx.sizes[page - 1][axis];
const fieldLabel = (f) => `${TYPE_LABELS[f.type] || f.type} · ${nameOf(recipients.find((r) => r.id === f.recipientId))}`;

export async function init(subjectApi, context) {
  api = subjectApi;
  ctx = context;
  const doc = await api.load();
  recipients = ordered(doc.recipients);
  fields = doc.fields;
  if (!ctx.sizes.length || !recipients.length) return missing(!ctx.sizes.length);
  undo = undoStack(document.getElementById('undo'), (err) => { status(''); showError(err); });
  const who = document.getElementById('field-recipient');
  for (const r of recipients) who.add(new Option(optionName(r), r.id));
  // The chosen recipient whole (name and address, wrapped as long as they are) under the list.
  const whole = () => {
    const r = recipients.find((x) => String(x.id) === who.value);
    document.getElementById('field-recipient-who').replaceChildren(swatch(recipients, r), ` ${describe(r)}`);
  };
  who.addEventListener('change', whole);
  whole();
  legend();
  canvas = createCanvas(document.getElementById('pages'), {
    sizes: ctx.sizes,
    pageUrl: (n, w) => `${ctx.pages}/${n}.png?w=${w}`,
    describe: (f) => ({ label: fieldLabel(f), colour: colourOf(recipients, f.recipientId) }),
    onSelect: (f) => panel.show(f),
    onChange: (f, before, how) => change(f, geometry(f), before, how),
    onDelete: remove,
    // The palette is a bar over the pages' bottom on a narrow screen.
    viewBottom: () => {
      const bar = document.getElementById('palette');
      return getComputedStyle(bar).position === 'fixed' ? bar.getBoundingClientRect().top : window.innerHeight;
    },
  });
  panel = propertiesPanel(document.getElementById('props'), {
    recipients,
    sizes: ctx.sizes,
    onChange: (f, patch, label) => change(f, patch, pick(f, patch), label),
    onDuplicate: duplicate,
    onDelete: remove,
  });
  fields.forEach(canvas.draw);
  palette();
  finishBeforeLeaving(() => { canvas.flush(); return undo.idle(); });
  // `&field=<id>`: the review's link to a field that must change.
  const wanted = fields.find((f) => String(f.id) === new URLSearchParams(window.location.search).get('field'));
  if (wanted) { canvas.select(wanted); canvas.focus(wanted); }
}

// A recipient in the "For" list: the name alone, with the address only where two share a
// name (the whole of both is shown under the list).
function optionName(r) {
  const twin = recipients.some((x) => x !== r && nameOf(x) === nameOf(r));
  return twin ? describe(r) : nameOf(r);
}

function missing(noFile) {
  const pages = document.getElementById('pages');
  const p = document.createElement('p');
  p.className = 'alert';
  const a = document.createElement('a');
  if (noFile) {
    const template = ctx.kind === 'template';
    p.textContent = `This ${template ? 'template' : 'document'} has no PDF yet: upload it before placing fields. `;
    a.href = inWorkspace(template ? '/templates/new' : '/documents/new');
    a.textContent = template ? 'Start a template from a PDF' : 'Upload a PDF';
  } else {
    p.textContent = 'Fields belong to recipients: add one first. ';
    a.href = `${ctx.edit}?step=recipients`;
    a.textContent = 'Add recipients';
  }
  p.append(a);
  pages.replaceChildren(p);
  document.querySelectorAll('.palette-item').forEach((b) => { b.disabled = true; });
}

function legend() {
  const ul = document.getElementById('legend');
  ul.replaceChildren(...recipients.map((r) => {
    const li = document.createElement('li');
    li.append(swatch(recipients, r), ` ${nameOf(r)}`);
    return li;
  }));
}

// The members of `f` that `patch` changes, as they are now (what undo puts back).
function pick(f, patch) {
  return Object.fromEntries(Object.keys(patch).map((k) => [k, f[k] ?? null]));
}

const saved = (what) => status(`${what} saved.`);

// Applies `patch` to `f` now, saves it; undo saves `before` again.
function change(f, patch, before, label) {
  Object.assign(f, patch);
  canvas.draw(f);
  panel.refresh(f);
  undo.queue(async () => {
    Object.assign(f, await api.patchField(f.id, patch));
    canvas.draw(f);
    saved(fieldLabel(f));
  });
  undo.push(`${label} ${fieldLabel(f)}`, async () => {
    Object.assign(f, await api.patchField(f.id, before));
    canvas.draw(f);
    panel.refresh(f);
    status(`Undone: ${label} ${fieldLabel(f)}.`);
  });
}

function newField(type, pageNumber, centreX, centreY) {
  const [wPt, hPt] = SIZES[type] || [140, 28];
  const pageWidth = Math.min(pct(wPt, pageNumber, 0), 100);
  const pageHeight = Math.min(pct(hPt, pageNumber, 1), 100);
  const meta = { type: type.toLowerCase() };
  if (CHOICES.includes(type)) {
    meta.values = type === 'SELECT' || type === 'DROPDOWN' ? [{ value: 'Option 1' }] : [{ id: 1, checked: false, value: 'Option 1' }];
  }
  const clamp = (v, max) => Math.round(Math.min(Math.max(v, 0), max) * 10000) / 10000;
  return {
    recipientId: Number(document.getElementById('field-recipient').value),
    type,
    pageNumber,
    pageX: clamp(centreX - pageWidth / 2, 100 - pageWidth),
    pageY: clamp(centreY - pageHeight / 2, 100 - pageHeight),
    pageWidth,
    pageHeight,
    fieldMeta: meta,
  };
}

// Saves the new field `body`, draws it and selects it; undo deletes it.
function create(body, label) {
  const f = { ...body, id: null };
  fields.push(f);
  return undo.queue(async () => {
    Object.assign(f, (await api.addField(body)).fields[0]);
    canvas.draw(f);
    canvas.select(f);
    canvas.focus(f);
    saved(fieldLabel(f));
    undo.push(`${label} ${fieldLabel(f)}`, async () => {
      await api.deleteField(f.id);
      fields = fields.filter((x) => x !== f);
      canvas.remove(f);
      status(`Undone: ${label} ${fieldLabel(f)}.`);
    });
  });
}

function bodyOf(f) {
  return { recipientId: f.recipientId, type: f.type, ...geometry(f), fieldMeta: f.fieldMeta };
}

function duplicate(f) {
  const copy = bodyOf(f);
  copy.pageX = Math.min(copy.pageX + pct(10, f.pageNumber, 0), 100 - copy.pageWidth);
  copy.pageY = Math.min(copy.pageY + pct(10, f.pageNumber, 1), 100 - copy.pageHeight);
  create(copy, 'duplicate');
}

function remove(f) {
  const label = fieldLabel(f);
  undo.queue(async () => {
    await api.deleteField(f.id);
    fields = fields.filter((x) => x !== f);
    canvas.remove(f);
    status(`${label} deleted.`);
    undo.push(`delete ${label}`, async () => {
      Object.assign(f, (await api.addField(bodyOf(f))).fields[0]);
      fields.push(f);
      canvas.draw(f);
      canvas.select(f);
      status(`Undone: delete ${label}.`);
    });
  });
}

// A field of `type` where the person looks: centred in the middle of the part in view of the
// page most in view (on a phone, under the palette, where the page shows).
function addInView(type) {
  const at = canvas.lookingAt();
  return create(newField(type, at.pageNumber, at.x, at.y), 'add');
}

// Dragging a type from the palette onto a page (pointer events: mouse, pen, touch); a press
// without a drag, or Enter, adds the field where the person looks (addInView).
function palette() {
  document.getElementById('palette').addEventListener('pointerdown', (e) => {
    const item = e.target.closest('.palette-item');
    if (!item || e.button !== 0) return;
    e.preventDefault();
    const type = item.dataset.type;
    const start = [e.clientX, e.clientY];
    let ghost = null;
    item.setPointerCapture(e.pointerId);
    const move = (ev) => {
      if (!ghost && Math.hypot(ev.clientX - start[0], ev.clientY - start[1]) < 5) return;
      if (!ghost) {
        ghost = document.createElement('div');
        ghost.className = 'drag-ghost';
        ghost.textContent = item.textContent;
        ghost.style.setProperty('--who', colourOf(recipients, Number(document.getElementById('field-recipient').value)));
        document.body.append(ghost);
      }
      ghost.style.left = `${ev.clientX}px`;
      ghost.style.top = `${ev.clientY}px`;
    };
    const up = (ev) => {
      item.removeEventListener('pointermove', move);
      item.removeEventListener('pointerup', up);
      item.removeEventListener('pointercancel', up);
      if (!ghost) return ev.type === 'pointerup' && addInView(type);
      ghost.remove();
      const at = ev.type === 'pointerup' && canvas.pageAt(ev.clientX, ev.clientY);
      if (at) create(newField(type, at.pageNumber, at.x, at.y), 'add');
      return null;
    };
    item.addEventListener('pointermove', move);
    item.addEventListener('pointerup', up);
    item.addEventListener('pointercancel', up);
  });
  // The keyboard: Enter or Space on a type adds it to the page most in view.
  document.getElementById('palette').addEventListener('keydown', (e) => {
    const item = e.target.closest('.palette-item');
    if (item && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      addInView(item.dataset.type);
    }
  });
}
