// The undo stack: each entry is a function that puts back the state before a change (through
// the API). Changes and undos run one after the other (`queue`), in the order they were made.

export function undoStack(button, onError) {
  const entries = [];
  let chain = Promise.resolve();
  const refresh = () => {
    button.disabled = entries.length === 0;
    button.setAttribute('aria-label', entries.length ? `Undo: ${entries[entries.length - 1].label}` : 'Undo (nothing to undo)');
  };
  // Runs `work` after what is already under way; a failure is shown, not thrown.
  const queue = (work) => {
    chain = chain.then(work).catch(onError);
    return chain;
  };
  const stack = {
    queue,
    // Records that `label` was done; `revert` undoes it.
    push(label, revert) {
      entries.push({ label, revert });
      refresh();
    },
    undo() {
      const last = entries.pop();
      refresh();
      if (last) return queue(last.revert);
      return chain;
    },
    idle: () => chain,
  };
  button.addEventListener('click', () => stack.undo());
  document.addEventListener('keydown', (e) => {
    const typing = e.target.closest && e.target.closest('input, textarea, select, [contenteditable]');
    if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === 'z' && !typing) {
      e.preventDefault();
      stack.undo();
    }
  });
  refresh();
  return stack;
}
