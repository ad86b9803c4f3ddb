// Every request the pages' scripts make to this server: the session's CSRF token as
// X-CSRF-Token (the page's <meta name="csrf-token">, or the one a caller gives), JSON in and
// out, and a refusal turned into a RequestError that carries what the error body says (its
// message, code and details) for the page to word (messages.js). Nothing here asks again: a
// refused POST may have done its work already. (Page images that a busy server refused are
// asked for again by page-retry.js, the one retry the pages make.)

export const UNREACHABLE = 'The server could not be reached. Check your connection and try again.';
const INTERRUPTED = 'The upload was interrupted. Check your connection and try again.';

// The page's token, when it has one (the application's pages; not the signing page).
export function csrfToken() {
  const meta = document.querySelector('meta[name=csrf-token]');
  return meta ? meta.content : undefined;
}

// The team whose workspace the page is in (its <meta name="workspace">), or '' on personal
// pages: the pages' calls send it as X-Docket-Workspace, so the API acts in the same workspace
// as the page (the server reads it only with the session's token, never with an API key).
export function workspace() {
  const meta = document.querySelector('meta[name=workspace]');
  return meta ? meta.content : '';
}

// `path` (starting with a slash) in the page's workspace: '/t/{slug}' + path on a team's pages.
export function inWorkspace(path) {
  const team = workspace();
  if (!team) return path;
  return '/t/' + encodeURIComponent(team) + (path === '/' ? '' : path);
}

// The headers every call of the pages sends: the token and the workspace, when there are any.
function pageHeaders(csrf) {
  const headers = {};
  if (csrf) headers['X-CSRF-Token'] = csrf;
  const team = workspace();
  if (team) headers['X-Docket-Workspace'] = team;
  return headers;
}

// A request that failed: `status` is the HTTP status (0 when no answer came), `said` the error
// body's message (null when it had none), `code` and `details` ([{ path, message }]) the
// body's. `message` is the server's message as it wrote it, or words for the missing one.
export class RequestError extends Error {
  constructor(status, body, unanswered) {
    const said = (body && typeof body.message === 'string' && body.message) || null;
    super(said || unanswered || `The server answered ${status}.`);
    this.name = 'RequestError';
    this.status = status;
    this.said = said;
    this.code = (body && body.code) || null;
    this.details = (body && Array.isArray(body.details) && body.details) || [];
  }
}

// A body's text as JSON, or null (empty, or not JSON).
function parse(text) {
  try {
    return text ? JSON.parse(text) : null;
  } catch (_) {
    return null;
  }
}

// `method` `url` as it is, with the session's cookie: fetch's Response, or fetch's own error.
// For the API explorer, which shows the raw answer; the pages call `call`.
export function send(method, url, { headers = {}, body } = {}) {
  return fetch(url, { method, credentials: 'same-origin', headers, body });
}

// `method` `url` with the JSON `body` if there is one: the JSON answer (null when empty), or a
// RequestError. `csrf` is the token to send, by default the page's (none when it has none).
export async function call(method, url, body, { csrf = csrfToken() } = {}) {
  const headers = { Accept: 'application/json', ...pageHeaders(csrf) };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let resp;
  try {
    resp = await send(method, url, { headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (_) {
    throw new RequestError(0, null, UNREACHABLE);
  }
  const json = parse(await resp.text());
  if (!resp.ok) throw new RequestError(resp.status, json);
  return json;
}

// POSTs `file` as `type` to `url` with the page's token, telling `progress(percent)` how far it
// has gone: the JSON answer, or a RequestError (status 0: the upload was interrupted).
// XMLHttpRequest, because fetch says nothing of an upload's progress.
export function upload(url, file, type, progress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('Content-Type', type);
    for (const [name, value] of Object.entries(pageHeaders(csrfToken()))) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (p) => {
      if (p.lengthComputable) progress(Math.round((p.loaded / p.total) * 100));
    };
    xhr.onload = () => {
      const json = parse(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) resolve(json);
      else reject(new RequestError(xhr.status, json));
    };
    xhr.onerror = () => reject(new RequestError(0, null, INTERRUPTED));
    xhr.send(file);
  });
}
