// The pages with their fields: each page's image at the width that is sharp on this screen
// (800, 1200 or 1600 px for the displayed width times devicePixelRatio), and each field as a box
// placed in percent of its page, exactly as the API stores it (pageX/pageY from the top-left
// corner, pageWidth/pageHeight, all percentages of the page). Boxes are selected, moved and
// resized with the pointer (mouse, pen, touch) and moved by the keyboard: an arrow key moves
// the selected field by 1 point of the PDF, Shift+arrow by 10. With `readOnly` (the document
// page) the boxes only show: no selection, no moves, and each says what it holds.

const WIDTHS = [800, 1200, 1600];
const KEYS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
const HANDLES = ['nw', 'ne', 'sw', 'se'];
const MIN_PCT = 1;

export const geometry = (f) => ({ pageNumber: f.pageNumber, pageX: f.pageX, pageY: f.pageY, pageWidth: f.pageWidth, pageHeight: f.pageHeight });
const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
const round = (v) => Math.round(v * 10000) / 10000;

// `opts`: sizes ([[w, h] in points] per page), pageUrl(n, width), describe(field) -> {label,
// colour, filled, signature}, onSelect(field|null), onChange(field, before, 'move'|'resize')
// after a move, resize or nudge, onDelete(field) for the Delete key; or `readOnly: true`
// without the last three (a box then shows `label`, filled or still to fill); viewBottom() where
// the screen's view of the pages ends (above a bar over them); `lazy` to load each page's image
// as it comes into view.
export function createCanvas(container, opts) {
  const boxes = new Map();
  let selected = null;
  const pages = opts.sizes.map(([w, h], i) => {
    const page = document.createElement('div');
    page.className = 'ed-page';
    page.dataset.page = i + 1;
    page.style.setProperty('--ratio', `${w} / ${h}`);
    const img = document.createElement('img');
    img.alt = `Page ${i + 1} of ${opts.sizes.length}`;
    img.draggable = false;
    img.dataset.retry = '';
    if (opts.lazy) img.loading = 'lazy';
    const layer = document.createElement('div');
    layer.className = 'field-layer';
    page.append(img, layer);
    container.append(page);
    return { page, img, layer };
  });

  const sharpen = () => {
    const dpr = window.devicePixelRatio || 1;
    for (const [i, p] of pages.entries()) {
      const need = p.page.clientWidth * dpr;
      const w = WIDTHS.find((x) => x >= need) || WIDTHS[WIDTHS.length - 1];
      const src = opts.pageUrl(i + 1, w);
      if (p.img.getAttribute('src') !== src) p.img.src = src;
    }
  };
  new ResizeObserver(sharpen).observe(container);
  sharpen();

  // The page as shown: its image, inside the sheet's border, which fields are placed in
  // percent of (the field layer covers exactly it).
  const shown = (i) => pages[i].layer.getBoundingClientRect();

  // Where (client) point x, y falls: the page and the percentages from its top-left corner (a
  // point on the sheet's border counts as the page's edge).
  function pageAt(x, y) {
    for (const [i, p] of pages.entries()) {
      const b = p.page.getBoundingClientRect();
      if (x >= b.left && x <= b.right && y >= b.top && y <= b.bottom) {
        const r = shown(i);
        const pct = (v, from, size) => Math.min(Math.max(((v - from) / size) * 100, 0), 100);
        return { pageNumber: i + 1, x: pct(x, r.left, r.width), y: pct(y, r.top, r.height) };
      }
    }
    return null;
  }

  // The page most of which is in view (the first when none is).
  function visiblePage() {
    let best = 1;
    let most = 0;
    for (const i of pages.keys()) {
      const r = shown(i);
      const inView = Math.min(r.bottom, window.innerHeight) - Math.max(r.top, 0);
      if (inView > most) { most = inView; best = i + 1; }
    }
    return best;
  }

  // Where the person looks: the page most in view and the middle of its part in view, in
  // percent from its top-left corner.
  function lookingAt() {
    const n = visiblePage();
    const r = shown(n - 1);
    const top = Math.max(r.top, 0);
    const bottom = Math.min(r.bottom, opts.viewBottom ? opts.viewBottom() : window.innerHeight);
    const y = bottom > top ? (((top + bottom) / 2 - r.top) / r.height) * 100 : 50;
    return { pageNumber: n, x: 50, y };
  }

  function place(el, f) {
    el.style.left = `${f.pageX}%`;
    el.style.top = `${f.pageY}%`;
    el.style.width = `${f.pageWidth}%`;
    el.style.height = `${f.pageHeight}%`;
    const layer = pages[f.pageNumber - 1] && pages[f.pageNumber - 1].layer;
    if (layer && el.parentElement !== layer) layer.append(el);
  }

  function draw(f) {
    let el = boxes.get(f);
    if (!el) {
      el = document.createElement('div');
      el.className = 'ed-field';
      const text = document.createElement('span');
      text.className = 'field-text';
      el.append(text);
      if (!opts.readOnly) editable(el, f);
      boxes.set(f, el);
    }
    const d = opts.describe(f);
    el.style.setProperty('--who', d.colour);
    const text = el.querySelector('.field-text');
    text.textContent = d.label;
    if (opts.readOnly) {
      el.classList.toggle('filled', Boolean(d.filled));
      el.classList.toggle('to-fill', !d.filled);
      el.classList.toggle('signature', Boolean(d.signature));
    } else {
      el.setAttribute('aria-label', `${d.label}, page ${f.pageNumber}`);
      el.setAttribute('aria-pressed', String(f === selected));
    }
    el.dataset.id = f.id;
    el.dataset.type = f.type;
    el.dataset.recipient = f.recipientId;
    place(el, f);
  }

  // A box the pointer and the keyboard move and resize.
  function editable(el, f) {
    el.tabIndex = 0;
    el.setAttribute('role', 'button');
    for (const h of HANDLES) {
      const hd = document.createElement('span');
      hd.className = `handle-resize ${h}`;
      hd.dataset.handle = h;
      el.append(hd);
    }
    el.addEventListener('pointerdown', (e) => pointer(e, f));
    el.addEventListener('keydown', (e) => key(e, f));
    el.addEventListener('focus', () => select(f));
  }

  function remove(f) {
    const el = boxes.get(f);
    if (el) el.remove();
    boxes.delete(f);
    if (selected === f) select(null);
  }

  function select(f) {
    if (selected === f) return;
    const old = selected;
    selected = f;
    if (old && boxes.get(old)) boxes.get(old).setAttribute('aria-pressed', 'false');
    if (f && boxes.get(f)) boxes.get(f).setAttribute('aria-pressed', 'true');
    opts.onSelect(f);
  }

  function focus(f) {
    const el = boxes.get(f);
    if (el) el.focus();
  }

  // Moving (the box) or resizing (a corner handle) with the pointer.
  function pointer(e, f) {
    if (e.button !== 0) return;
    e.preventDefault();
    select(f);
    const el = boxes.get(f);
    el.focus({ preventScroll: true });
    const handle = e.target.dataset.handle;
    const before = geometry(f);
    const rect = shown(f.pageNumber - 1);
    const start = [e.clientX, e.clientY];
    el.setPointerCapture(e.pointerId);
    const move = (ev) => {
      const dx = ((ev.clientX - start[0]) / rect.width) * 100;
      const dy = ((ev.clientY - start[1]) / rect.height) * 100;
      Object.assign(f, handle ? resized(before, handle, dx, dy) : moved(before, dx, dy));
      place(el, f);
    };
    const up = () => {
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerup', up);
      el.removeEventListener('pointercancel', up);
      if (JSON.stringify(geometry(f)) !== JSON.stringify(before)) opts.onChange(f, before, handle ? 'resize' : 'move');
    };
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', up);
    el.addEventListener('pointercancel', up);
  }

  // Arrow keys: by one point (ten with Shift); a burst of presses is one change.
  let burst = null;
  function key(e, f) {
    if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      flush();
      opts.onDelete(f);
      return;
    }
    const dir = KEYS[e.key];
    if (!dir) return;
    e.preventDefault();
    const [w, h] = opts.sizes[f.pageNumber - 1];
    const step = e.shiftKey ? 10 : 1;
    if (!burst || burst.f !== f) {
      if (burst) flush();
      burst = { f, before: geometry(f), timer: 0 };
    }
    Object.assign(f, moved(geometry(f), (dir[0] * step * 100) / w, (dir[1] * step * 100) / h));
    place(boxes.get(f), f);
    clearTimeout(burst.timer);
    burst.timer = setTimeout(flush, 400);
  }
  function flush() {
    if (!burst) return;
    const { f, before, timer } = burst;
    clearTimeout(timer);
    burst = null;
    if (JSON.stringify(geometry(f)) !== JSON.stringify(before)) opts.onChange(f, before, 'move');
  }

  return { draw, remove, select, focus, pageAt, visiblePage, lookingAt, flush, selected: () => selected };
}

function moved(g, dx, dy) {
  return {
    pageX: round(clamp(g.pageX + dx, 0, 100 - g.pageWidth)),
    pageY: round(clamp(g.pageY + dy, 0, 100 - g.pageHeight)),
  };
}

function resized(g, handle, dx, dy) {
  let { pageX: x, pageY: y, pageWidth: w, pageHeight: h } = g;
  if (handle.includes('e')) w = clamp(w + dx, MIN_PCT, 100 - x);
  if (handle.includes('s')) h = clamp(h + dy, MIN_PCT, 100 - y);
  if (handle.includes('w')) { const nx = clamp(x + dx, 0, x + w - MIN_PCT); w += x - nx; x = nx; }
  if (handle.includes('n')) { const ny = clamp(y + dy, 0, y + h - MIN_PCT); h += y - ny; y = ny; }
  return { pageX: round(x), pageY: round(y), pageWidth: round(w), pageHeight: round(h) };
}
