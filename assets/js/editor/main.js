// The editor's entry: reads what the page gives (#editor's data attributes) and starts the
// current step's module.

import { subject } from './api.js';
import { showError } from './status.js';

const root = document.getElementById('editor');
const ctx = {
  root,
  api: subject(root.dataset.api, root.dataset.kind),
  kind: root.dataset.kind,
  pages: root.dataset.pages,
  sizes: (root.dataset.sizes || '').split(' ').filter(Boolean).map((s) => s.split('x').map(Number)),
  edit: root.dataset.edit,
  done: root.dataset.done,
};

const steps = {
  settings: () => import('./settings.js'),
  recipients: () => import('./recipients.js'),
  fields: () => import('./fields.js'),
  review: () => import('./review.js'),
};

steps[root.dataset.step]()
  .then((m) => m.init(ctx.api, ctx))
  .catch((err) => showError(err));
