// The upload page: a PDF dropped on the zone or picked, its title taken from the file name,
// sent to POST /api/v1/documents/upload (or the form's data-endpoint, /api/v1/templates/upload)
// with a progress bar; then the editor of what it made. A refused file
// shows the server's own reason.

import { explain, showAlert } from './messages.js';
import { upload } from './request.js';

start();

function start() {
  const form = document.getElementById('upload-form');
  if (!form) return;
  const input = document.getElementById('pdf-file');
  const zone = document.getElementById('drop-zone');
  const chosen = document.getElementById('chosen');
  const title = document.getElementById('title');
  const button = document.getElementById('upload-button');
  const progressBox = document.getElementById('progress-box');
  const progress = document.getElementById('upload-progress');
  const progressText = document.getElementById('progress-text');
  const error = document.getElementById('upload-error');
  let file = null;
  let titleEdited = false;

  title.addEventListener('input', () => { titleEdited = true; });

  function titleOf(name) {
    return name.replace(/\.pdf$/i, '').replace(/[_]+/g, ' ').trim() || name;
  }

  function choose(f) {
    file = f || null;
    showAlert(error, null);
    if (!file) {
      chosen.hidden = true;
      return;
    }
    const kb = file.size / 1024;
    const size = kb >= 1024 ? (kb / 1024).toFixed(1) + ' MB' : Math.max(1, Math.round(kb)) + ' KB';
    chosen.textContent = 'Chosen: ' + file.name + ' (' + size + ')';
    chosen.hidden = false;
    if (!titleEdited || !title.value.trim()) {
      title.value = titleOf(file.name);
      titleEdited = false;
    }
  }

  input.addEventListener('change', () => choose(input.files[0]));

  ['dragenter', 'dragover'].forEach((kind) => zone.addEventListener(kind, (e) => {
    e.preventDefault();
    zone.classList.add('dragging');
  }));
  ['dragleave', 'dragend'].forEach((kind) => zone.addEventListener(kind, () => zone.classList.remove('dragging')));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('dragging');
    const f = e.dataTransfer && e.dataTransfer.files[0];
    if (f) choose(f);
  });

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    showAlert(error, null);
    if (!file) {
      showAlert(error, 'Choose a PDF file first.');
      input.focus();
      return;
    }
    progress.value = 0;
    progressText.textContent = '0%';
    progressBox.hidden = false;
    button.disabled = true;
    const shown = (pct) => {
      progress.value = pct;
      progress.textContent = pct + '%';
      progressText.textContent = pct + '%';
    };
    upload(form.dataset.endpoint + '?title=' + encodeURIComponent(title.value), file, 'application/pdf', shown)
      .then((made) => {
        progress.value = 100;
        progressText.textContent = '100%, checked';
        window.location.assign(form.dataset.editor + made[form.dataset.idKey] + '/edit');
      }, (err) => {
        progressBox.hidden = true;
        button.disabled = false;
        showAlert(error, explain(err));
      });
  });
}
