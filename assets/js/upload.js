// The upload page: a PDF dropped on the zone or picked is sent at once, titled after its file
// name (the title is changed later in the editor), to POST /api/v1/documents/upload (or the
// form's data-endpoint, /api/v1/templates/upload) with a progress bar; then the editor of what
// it made. A refused file shows the server's own reason, and another file can be chosen.

import { explain, showAlert } from './messages.js';
import { upload } from './request.js';

start();

function start() {
  const form = document.getElementById('upload-form');
  if (!form) return;
  const input = document.getElementById('pdf-file');
  const zone = document.getElementById('drop-zone');
  const chosen = document.getElementById('chosen');
  const progressBox = document.getElementById('progress-box');
  const progress = document.getElementById('upload-progress');
  const progressText = document.getElementById('progress-text');
  const error = document.getElementById('upload-error');
  let busy = false;

  // "Lease_for_flat.pdf" -> "Lease for flat".
  function titleOf(name) {
    return name.replace(/\.pdf$/i, '').replace(/[_]+/g, ' ').trim() || name;
  }

  function shown(pct) {
    progress.value = pct;
    progress.textContent = pct + '%';
    progressText.textContent = pct + '%';
  }

  // Sends `file` (one at a time): the editor once it is accepted, or the server's reason.
  function send(file) {
    if (!file || busy) return;
    busy = true;
    showAlert(error, null);
    const kb = file.size / 1024;
    const size = kb >= 1024 ? (kb / 1024).toFixed(1) + ' MB' : Math.max(1, Math.round(kb)) + ' KB';
    chosen.textContent = 'Uploading ' + file.name + ' (' + size + ')';
    chosen.hidden = false;
    shown(0);
    progressBox.hidden = false;
    zone.classList.add('busy');
    form.setAttribute('aria-busy', 'true');
    upload(form.dataset.endpoint + '?title=' + encodeURIComponent(titleOf(file.name)), file, 'application/pdf', shown)
      .then((made) => {
        progress.value = 100;
        progressText.textContent = '100%, checked';
        window.location.assign(form.dataset.editor + made[form.dataset.idKey] + '/edit');
      }, (err) => {
        busy = false;
        progressBox.hidden = true;
        chosen.hidden = true;
        zone.classList.remove('busy');
        form.removeAttribute('aria-busy');
        // The same file can be chosen again (after fixing it), or another.
        input.value = '';
        showAlert(error, explain(err));
      });
  }

  input.addEventListener('change', () => send(input.files[0]));

  ['dragenter', 'dragover'].forEach((kind) => zone.addEventListener(kind, (e) => {
    e.preventDefault();
    zone.classList.add('dragging');
  }));
  ['dragleave', 'dragend'].forEach((kind) => zone.addEventListener(kind, () => zone.classList.remove('dragging')));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('dragging');
    const f = e.dataTransfer && e.dataTransfer.files[0];
    if (f) send(f);
  });

  // Nothing to submit: choosing the file is what sends it.
  form.addEventListener('submit', (e) => e.preventDefault());
}
