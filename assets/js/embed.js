// The embedded signing pages (`/embed/sign/<token>`, `/embed/direct/<token>`, in another site's
// frame). Reads the options Documenso's embedding components put in the address's hash
// (base64 of the URI-encoded JSON), applies those Docket honours (a language of Docket's, the
// look's colours and radius from an allow-list, dark mode off), starts the signing page's own
// script with the name, e-mail and rejection presets, and posts the page's events to the
// framing page: `{ action, data }` with `window.parent.postMessage`, addressed to the framing
// page's origin only when it is one the owner listed (`data-frame-origins`; never `*`).

const body = document.body;
const allowed = (body.dataset.frameOrigins || '').split(' ').filter(Boolean);
const languages = (body.dataset.languages || '').split(' ').filter(Boolean);
const query = new URLSearchParams(window.location.search);

// The hash's options, or {} when it has none or they do not read.
export function readOptions(hash) {
  const text = (hash || '').replace(/^#/, '');
  if (!text) return {};
  try {
    const parsed = JSON.parse(decodeURIComponent(atob(text)));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch (_) {
    return {};
  }
}

// The components' colour names and the stylesheet's properties each sets.
const VARS = {
  background: ['--bg'],
  foreground: ['--text'],
  muted: ['--surface-2'],
  mutedForeground: ['--muted'],
  card: ['--surface'],
  cardBorder: ['--border'],
  cardForeground: ['--text'],
  border: ['--border'],
  input: ['--border-strong'],
  primary: ['--accent', '--accent-hover', '--link'],
  primaryForeground: ['--on-accent'],
  destructive: ['--danger', '--danger-hover', '--danger-text'],
  ring: ['--focus'],
  warning: ['--warn'],
};
// A colour: #rgb, #rgba, #rrggbb, #rrggbbaa, rgb()/hsl() of numbers, or a colour's name.
const COLOR = /^(#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})|(rgba?|hsla?)\([0-9.,%\s/]+(deg)?[0-9.,%\s/]*\)|[a-z]{3,20})$/i;
// A radius: a small length in px, rem or em.
const LENGTH = /^\d{1,3}(\.\d{1,3})?(px|rem|em)$/;

// The colours and radius asked for, each checked against its shape (anything else is ignored).
export function cssProperties(cssVars) {
  const out = [];
  if (!cssVars || typeof cssVars !== 'object') return out;
  for (const [name, value] of Object.entries(cssVars)) {
    if (typeof value !== 'string') continue;
    const v = value.trim();
    if (name === 'radius') {
      if (LENGTH.test(v)) out.push(['--radius', v], ['--radius-sm', v]);
    } else if (Object.hasOwn(VARS, name) && COLOR.test(v)) {
      for (const prop of VARS[name]) out.push([prop, v]);
    }
  }
  return out;
}

function applyLook(options) {
  const root = document.documentElement;
  if (options.darkModeDisabled === true) root.classList.add('light-only');
  for (const [prop, value] of cssProperties(options.cssVars)) root.style.setProperty(prop, value);
}

// Asks for the page in the language the component names, once, when Docket has it.
function switchLanguage(options) {
  const lang = typeof options.language === 'string' ? options.language.toLowerCase().split(/[-_]/)[0] : '';
  if (!lang || query.has('lang') || !languages.includes(lang) || lang === document.documentElement.lang) return false;
  query.set('lang', lang);
  window.location.replace(window.location.pathname + '?' + query.toString() + window.location.hash);
  return true;
}

// The framing page's origin when it is one of the listed ones (all of them when the browser
// does not say: the browser delivers to the one that matches and drops the others).
function targets() {
  if (window.parent === window) return [];
  const ancestors = window.location.ancestorOrigins;
  const named = (ancestors && ancestors.length && ancestors[0]) || originOf(document.referrer);
  if (named) return allowed.includes(named) ? [named] : [];
  return allowed;
}

function originOf(url) {
  try { return url ? new URL(url).origin : ''; } catch (_) { return ''; }
}

export function post(action, data) {
  for (const origin of targets()) window.parent.postMessage({ action, data: data === undefined ? null : data }, origin);
}

// The signing page: its presets, its events posted on, then its script.
async function startSigning(root, options) {
  const str = (v) => (typeof v === 'string' ? v.trim().slice(0, 254) : '');
  if (str(options.name)) root.dataset.presetName = str(options.name);
  if (options.lockName === true && str(options.name)) root.dataset.lockName = '';
  if (str(options.email)) root.dataset.presetEmail = str(options.email);
  if (options.lockEmail === true && str(options.email)) root.dataset.lockEmail = '';
  if (options.allowDocumentRejection !== true) root.dataset.reject = 'no';
  // After a direct link's form the framing page was told the document is ready already.
  const ready = !query.has('direct');
  const forward = {
    ready: () => { if (ready) post('document-ready', null); },
    'field-signed': (d) => post('field-signed', d),
    'field-unsigned': (d) => post('field-unsigned', d),
    completed: (d) => post('document-completed', d),
    rejected: (d) => post('document-rejected', d),
    error: (d) => post('document-error', d),
  };
  for (const [name, send] of Object.entries(forward)) {
    root.addEventListener('signing:' + name, (ev) => send(ev.detail));
  }
  await import('./sign.js');
}

// The direct link's form: prefilled (and locked) as asked, sent as JSON, then on to the
// embedded signing page of the document made.
function startDirect(form, options) {
  const name = form.querySelector('#name');
  const email = form.querySelector('#email');
  const problem = document.getElementById('direct-problem');
  if (typeof options.name === 'string') name.value = options.name.slice(0, 200);
  if (typeof options.email === 'string') email.value = options.email.slice(0, 254);
  if (options.lockName === true && name.value) name.readOnly = true;
  if (options.lockEmail === true && email.value) email.readOnly = true;
  const mark = (input, message) => {
    const id = input.id + '-error';
    let line = document.getElementById(id);
    if (!message) {
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-describedby');
      if (line) line.remove();
      return;
    }
    if (!line) {
      line = document.createElement('p');
      line.className = 'error-text';
      line.id = id;
      input.parentElement.append(line);
    }
    line.textContent = message;
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', id);
  };
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    problem.hidden = true;
    mark(name, ''); mark(email, '');
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const resp = await fetch('/embed/direct/' + encodeURIComponent(form.dataset.token), {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ name: name.value, email: email.value }),
      });
      const answer = await resp.json().catch(() => null);
      if (!resp.ok) throw answer || { message: String(resp.status) };
      const next = new URLSearchParams({ direct: '1' });
      if (query.has('lang')) next.set('lang', query.get('lang'));
      window.location.assign('/embed/sign/' + encodeURIComponent(answer.token) + '?' + next + window.location.hash);
    } catch (e) {
      button.disabled = false;
      const details = (e && Array.isArray(e.details) && e.details) || [];
      const paths = details.map((d) => d.path);
      if (paths.includes('name')) mark(name, form.dataset.badName);
      if (paths.includes('email')) mark(email, form.dataset.badEmail);
      if (!paths.includes('name') && !paths.includes('email')) {
        problem.textContent = (e && e.message) || String(e);
        problem.hidden = false;
      }
      (paths.includes('name') ? name : paths.includes('email') ? email : problem).focus?.();
      post('document-error', (e && e.message) || String(e));
    }
  });
  post('document-ready', null);
}

function start() {
  const options = readOptions(window.location.hash);
  if (switchLanguage(options)) return;
  applyLook(options);
  const root = document.getElementById('signing');
  if (root) {
    startSigning(root, options);
    return;
  }
  const form = document.getElementById('embed-direct');
  if (form) startDirect(form, options);
}

start();
