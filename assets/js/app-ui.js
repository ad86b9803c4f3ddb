// What the application's pages share besides requests and messages: a confirmation dialog
// whose action may be refused, and copying a text box to the clipboard.

import { explain, showAlert } from './messages.js';

// A confirmation dialog (#remove-dialog and its parts): the opener shows it with the safe
// choice focused; the confirm button runs `action` (async), whose error is shown in the
// dialog; closing it gives the focus back to the opener.
export function confirming(action) {
  const dialog = document.getElementById('remove-dialog');
  const open = document.getElementById('remove-open');
  const confirm = document.getElementById('remove-confirm');
  const error = document.getElementById('remove-error');
  open.addEventListener('click', () => {
    showAlert(error, null);
    dialog.showModal();
    document.getElementById('remove-keep').focus();
  });
  dialog.addEventListener('close', () => open.focus());
  confirm.addEventListener('click', async () => {
    confirm.disabled = true;
    showAlert(error, null);
    try {
      await action(confirm);
    } catch (e) {
      showAlert(error, explain(e));
      confirm.disabled = false;
    }
  });
}

// Copies the value of the text box `box` (selected first, so that it can be copied by hand
// when the clipboard is out of reach): whether the clipboard took it.
export async function copy(box) {
  box.select();
  try {
    await navigator.clipboard.writeText(box.value);
    return true;
  } catch (_) {
    return false;
  }
}
