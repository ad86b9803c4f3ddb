// The server's refusals shown next to what must change: each detail's path (`meta.timezone`,
// `recipients[1]`, `fields[0].fieldMeta.values`) is matched to the control or item that carries
// it as `data-path`, or, in the review, to the step that changes it.

export function clear(root) {
  root.querySelectorAll('.error-text[data-for-path]').forEach((el) => el.remove());
  root.querySelectorAll('[aria-invalid=true]').forEach((el) => el.removeAttribute('aria-invalid'));
}

// Puts each of `details` under the element of `root` whose data-path it names (or a prefix of
// it); returns the details nothing showed.
export function place(root, details) {
  const left = [];
  for (const d of details) {
    const target = find(root, d.path);
    if (!target) { left.push(d); continue; }
    const p = document.createElement('p');
    p.className = 'error-text';
    p.dataset.forPath = d.path;
    p.id = `problem-${Math.random().toString(36).slice(2, 9)}`;
    p.textContent = d.message;
    target.after(p);
    if (target.matches('input, select, textarea')) {
      target.setAttribute('aria-invalid', 'true');
      target.setAttribute('aria-describedby', `${target.getAttribute('aria-describedby') || ''} ${p.id}`.trim());
    } else if (target.tagName === 'FIELDSET') {
      target.append(p);
    }
  }
  return left;
}

function find(root, path) {
  let p = path;
  while (p) {
    const el = root.querySelector(`[data-path="${CSS.escape(p)}"]`);
    if (el) return el;
    const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
    if (cut <= 0) return null;
    p = p.slice(0, cut);
  }
  return null;
}
