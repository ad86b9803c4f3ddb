// Reordering a list by dragging an item's `.handle` (pointer events: mouse, pen and touch):
// `onMove(from, to)` once the item is dropped at another place.

export function dragToReorder(listEl, onMove) {
  listEl.addEventListener('pointerdown', (e) => {
    const handle = e.target.closest('.handle');
    if (!handle || e.button !== 0) return;
    const item = handle.closest('li');
    const items = () => [...listEl.children];
    const from = items().indexOf(item);
    e.preventDefault();
    handle.setPointerCapture(e.pointerId);
    item.classList.add('dragging');
    let to = from;
    const over = (ev) => {
      const others = items();
      to = others.length - 1;
      for (const [i, el] of others.entries()) {
        const box = el.getBoundingClientRect();
        if (ev.clientY < box.top + box.height / 2) { to = i > from ? i - 1 : i; break; }
      }
      others.forEach((el, i) => el.classList.toggle('drop-before', i === to && to < from));
      others.forEach((el, i) => el.classList.toggle('drop-after', i === to && to > from));
    };
    const up = () => {
      handle.removeEventListener('pointermove', over);
      items().forEach((el) => el.classList.remove('dragging', 'drop-before', 'drop-after'));
      if (to !== from) onMove(from, to);
    };
    handle.addEventListener('pointermove', over);
    handle.addEventListener('pointerup', up, { once: true });
    handle.addEventListener('pointercancel', up, { once: true });
  });
}
