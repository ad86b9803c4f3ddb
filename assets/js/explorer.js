// Docket API explorer: renders /api/v1/openapi.json and sends requests from the page.
// Written for Docket; no third-party code. Works offline (same-origin requests only).

import { el } from './dom.js';
import { send } from './request.js';

start();

function start() {
  const root = document.getElementById('endpoints');
  const keyInput = document.getElementById('api-key');
  const filter = document.getElementById('filter');
  keyInput.value = sessionStorage.getItem('docket-api-key') || '';
  keyInput.addEventListener('input', () => sessionStorage.setItem('docket-api-key', keyInput.value));

  function resolve(spec, schema) {
    if (schema && schema.$ref) return resolve(spec, spec.components.schemas[schema.$ref.split('/').pop()]);
    return schema || {};
  }

  // A small example value for a schema: enough to edit and send.
  function example(spec, schema, depth) {
    schema = resolve(spec, schema);
    if (depth > 4) return null;
    if (schema.example !== undefined) return schema.example;
    if (schema.oneOf) {
      const some = schema.oneOf.find((s) => s.type !== 'null') || schema.oneOf[0];
      return example(spec, some, depth + 1);
    }
    if (schema.enum) return schema.enum[0];
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
      case 'object': {
        const out = {};
        for (const [k, v] of Object.entries(schema.properties || {})) {
          if ((schema.required || []).includes(k) || depth === 0) out[k] = example(spec, v, depth + 1);
        }
        return out;
      }
      case 'array': return [example(spec, schema.items, depth + 1)];
      case 'integer': return schema.minimum || 1;
      case 'number': return schema.minimum || 10;
      case 'boolean': return false;
      case 'string':
        if (schema.format === 'email') return 'ann@example.com';
        if (schema.format === 'date-time') return new Date().toISOString();
        return 'text';
      default: return null;
    }
  }

  function operation(spec, path, method, op) {
    const id = `${method}-${path}`.replace(/[^a-z0-9]+/gi, '-');
    const details = el('details', { class: 'card', 'data-search': `${method} ${path} ${op.summary}`.toLowerCase() });
    details.append(el('summary', {},
      el('span', { class: `badge ${method === 'get' ? 'ok' : method === 'delete' ? 'bad' : 'warn'}` }, method.toUpperCase()),
      ' ', el('code', {}, path), ' ', el('span', { class: 'muted' }, op.summary)));
    const body = el('div', { class: 'stack' });
    const auth = (op.security || []).length === 0 || (op.security.length === 1 && Object.keys(op.security[0]).length === 0)
      ? 'No credentials (the signed URL authorises it).'
      : 'Credentials: ' + op.security.map((s) => Object.keys(s)[0] || 'none').join(' or ') + '.';
    body.append(el('p', { class: 'small muted' }, auth));
    const form = el('form', { class: 'stack' });
    const inputs = [];
    for (const p of op.parameters || []) {
      const inputId = `${id}-${p.in}-${p.name}`;
      const input = el('input', { id: inputId, type: 'text', 'data-in': p.in, 'data-name': p.name });
      inputs.push(input);
      form.append(el('div', { class: 'field' }, el('label', { for: inputId }, `${p.name} (${p.in}${p.required ? ', required' : ''})`), input));
    }
    let textarea = null;
    const json = op.requestBody && op.requestBody.content['application/json'];
    if (json) {
      textarea = el('textarea', { id: `${id}-body`, rows: '8', spellcheck: 'false' });
      textarea.value = JSON.stringify(example(spec, json.schema, 0), null, 2);
      form.append(el('div', { class: 'field' }, el('label', { for: textarea.id }, 'JSON body'), textarea));
    }
    const out = el('pre', { class: 'small', 'aria-live': 'polite' });
    form.append(el('div', { class: 'form-actions' }, el('button', { class: 'button primary', type: 'submit' }, 'Send request')));
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      let url = path;
      const query = new URLSearchParams();
      for (const i of inputs) {
        if (!i.value) continue;
        if (i.dataset.in === 'path') url = url.replace(`{${i.dataset.name}}`, encodeURIComponent(i.value));
        else if (i.dataset.in === 'query') query.set(i.dataset.name, i.value);
      }
      if ([...query].length) url += '?' + query;
      const headers = {};
      if (keyInput.value) headers.authorization = `Bearer ${keyInput.value}`;
      if (textarea) headers['content-type'] = 'application/json';
      out.textContent = 'Sending…';
      try {
        const resp = await send(method.toUpperCase(), url, { headers, body: textarea ? textarea.value : undefined });
        const text = await resp.text();
        let shown = text;
        try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (_) { /* not JSON */ }
        out.textContent = `${resp.status} ${resp.statusText}\n\n${shown}`;
      } catch (e) {
        out.textContent = `Request failed: ${e}`;
      }
    });
    body.append(form, out);
    details.append(body);
    return details;
  }

  send('GET', '/api/v1/openapi.json').then((r) => r.json()).then((spec) => {
    root.replaceChildren();
    for (const [path, ops] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(ops)) root.append(operation(spec, path, method, op));
    }
    filter.addEventListener('input', () => {
      const q = filter.value.toLowerCase();
      for (const d of root.children) d.hidden = q && !d.dataset.search.includes(q);
    });
  }).catch((e) => { root.textContent = `Could not load the API description: ${e}`; });
}
