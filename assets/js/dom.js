// Building elements in the pages' scripts: one helper, so every script sets attributes, styles
// and listeners the same way (and never through inline styles, which the CSP refuses).

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
