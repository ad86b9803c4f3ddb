// The properties of the selected field: its recipient, position and size (in points), and
// what its type takes in fieldMeta (label, placeholder, required, read-only, a text's
// character limit, a choice's values, text alignment). Each change is handed to `onChange`
// as a PATCH body of the field.

import { nameOf } from './people.js';

export const TYPE_LABELS = {
  SIGNATURE: 'Signature', FREE_SIGNATURE: 'Signature', INITIALS: 'Initials', NAME: 'Name',
  EMAIL: 'E-mail', DATE: 'Date signed', TEXT: 'Text', NUMBER: 'Number', RADIO: 'Radio buttons',
  CHECKBOX: 'Checkboxes', SELECT: 'Drop-down list', DROPDOWN: 'Drop-down list',
};
const ALIGNED = ['INITIALS', 'NAME', 'EMAIL', 'DATE', 'TEXT', 'NUMBER'];
const CHOICES = ['RADIO', 'CHECKBOX', 'SELECT', 'DROPDOWN'];
const PLACEHELD = ['TEXT', 'NUMBER', 'EMAIL', 'NAME', 'SELECT', 'DROPDOWN'];

const pts = (v) => Math.round(v * 100) / 100;

export function propertiesPanel(form, opts) {
  let current = null;
  const empty = document.getElementById('props-empty');

  const meta = (f) => ({ type: f.type.toLowerCase(), ...(f.fieldMeta || {}) });
  const setMeta = (f, key, value, label) => {
    const m = meta(f);
    if (value === null || value === '') delete m[key]; else m[key] = value;
    opts.onChange(f, { fieldMeta: m }, label);
  };

  function row(id, label, control) {
    const wrap = document.createElement('div');
    wrap.className = 'field';
    const l = document.createElement('label');
    l.htmlFor = id;
    l.textContent = label;
    control.id = id;
    wrap.append(l, control);
    return wrap;
  }
  function input(type, value, onChange, attrs = {}) {
    const el = document.createElement('input');
    el.type = type;
    Object.assign(el, attrs);
    if (type === 'checkbox') el.checked = Boolean(value); else el.value = value ?? '';
    el.addEventListener('change', () => onChange(el));
    return el;
  }
  function check(id, label, value, onChange) {
    const l = document.createElement('label');
    l.className = 'choice';
    const el = input('checkbox', value, onChange, { id });
    l.append(el, ` ${label}`);
    return l;
  }

  function render(f) {
    const m = meta(f);
    const [wPt, hPt] = opts.sizes[f.pageNumber - 1];
    const parts = [];
    const h = document.createElement('p');
    h.className = 'props-title';
    h.textContent = `${TYPE_LABELS[f.type] || f.type} on page ${f.pageNumber}`;
    parts.push(h);
    const who = document.createElement('select');
    for (const r of opts.recipients) who.add(new Option(nameOf(r), r.id, false, r.id === f.recipientId));
    who.addEventListener('change', () => opts.onChange(f, { recipientId: Number(who.value) }, 'give to another recipient'));
    parts.push(row('prop-recipient', 'Recipient', who));
    if (opts.sizes.length > 1) {
      const page = document.createElement('select');
      opts.sizes.forEach((_, i) => page.add(new Option(`Page ${i + 1}`, i + 1, false, i + 1 === f.pageNumber)));
      page.addEventListener('change', () => opts.onChange(f, { pageNumber: Number(page.value) }, 'move to another page'));
      parts.push(row('prop-page', 'Page', page));
    }
    // Position and size in points of the PDF, from the page's top-left corner.
    const grid = document.createElement('div');
    grid.className = 'grid-4';
    const geo = [['pageX', 'Left', wPt], ['pageY', 'Top', hPt], ['pageWidth', 'Width', wPt], ['pageHeight', 'Height', hPt]];
    for (const [key, label, size] of geo) {
      const el = input('number', pts((f[key] * size) / 100), (x) => {
        const v = Number(x.value);
        if (Number.isFinite(v)) opts.onChange(f, { [key]: Math.round(((v * 100) / size) * 10000) / 10000 }, `change ${label.toLowerCase()} of`);
      }, { step: 'any', min: 0 });
      grid.append(row(`prop-${key}`, `${label} (pt)`, el));
    }
    parts.push(grid);
    parts.push(row('prop-label', 'Label', input('text', m.label, (x) => setMeta(f, 'label', x.value.trim(), 'label'), { maxLength: 200 })));
    if (PLACEHELD.includes(f.type)) {
      parts.push(row('prop-placeholder', 'Placeholder', input('text', m.placeholder, (x) => setMeta(f, 'placeholder', x.value.trim(), 'placeholder'), { maxLength: 200 })));
    }
    parts.push(check('prop-required', 'Required', m.required, (x) => setMeta(f, 'required', x.checked, 'required')));
    parts.push(check('prop-readonly', 'Read-only', m.readOnly, (x) => setMeta(f, 'readOnly', x.checked, 'read-only')));
    if (f.type === 'TEXT') {
      parts.push(row('prop-limit', 'Character limit (0: none)', input('number', m.characterLimit ?? 0, (x) => setMeta(f, 'characterLimit', Math.max(0, Math.floor(Number(x.value) || 0)), 'character limit'), { min: 0, max: 10000, step: 1 })));
    }
    if (CHOICES.includes(f.type)) {
      const area = document.createElement('textarea');
      area.rows = 4;
      area.value = (m.values || []).map((v) => v.value).join('\n');
      area.addEventListener('change', () => {
        const lines = area.value.split('\n').map((s) => s.trim()).filter(Boolean);
        const old = m.values || [];
        const values = lines.map((value, i) => (f.type === 'SELECT' || f.type === 'DROPDOWN'
          ? { value }
          : { id: i + 1, checked: Boolean((old.find((o) => o.value === value) || {}).checked), value }));
        setMeta(f, 'values', values, 'values');
      });
      parts.push(row('prop-values', 'Values, one per line', area));
    }
    if (ALIGNED.includes(f.type)) {
      const sel = document.createElement('select');
      for (const [v, t] of [['left', 'Left'], ['center', 'Centre'], ['right', 'Right']]) sel.add(new Option(t, v, false, (m.textAlign || 'left') === v));
      sel.addEventListener('change', () => setMeta(f, 'textAlign', sel.value, 'alignment'));
      parts.push(row('prop-align', 'Text alignment', sel));
    }
    const actions = document.createElement('div');
    actions.className = 'row';
    const button = (text, cls, fn) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = `button small ${cls}`;
      b.textContent = text;
      b.addEventListener('click', () => fn(f));
      return b;
    };
    actions.append(button('Duplicate', 'secondary', opts.onDuplicate), button('Delete field', 'danger', opts.onDelete));
    parts.push(actions);
    form.replaceChildren(...parts);
  }

  return {
    show(f) {
      current = f;
      form.hidden = !f;
      empty.hidden = Boolean(f);
      if (f) render(f); else form.replaceChildren();
    },
    // Shows `f` again after a change, unless someone is typing in the panel.
    refresh(f) {
      if (f !== current) return;
      if (form.contains(document.activeElement) && document.activeElement.matches('input[type=text], textarea')) return;
      const focused = document.activeElement && document.activeElement.id;
      render(f);
      if (focused && form.contains(document.activeElement) === false) {
        const again = document.getElementById(focused);
        if (again && form.contains(again)) again.focus();
      }
    },
  };
}
