// The editor's calls to /api/v1 (request.js: the session, the page's X-CSRF-Token, JSON in and
// out; a refusal is a RequestError carrying the server's message and its details, each with
// its JSON path), as the document's API shapes them whether a document or a template is
// edited.

import { call } from '../request.js';

// The document (or template) the editor works on, under `base` (`/api/v1/documents/7`).
export function subject(base, kind) {
  if (kind === 'template') return templateSubject(base);
  return {
    load: () => call('GET', base),
    update: (body) => call('PATCH', base, body),
    addRecipient: (body) => call('POST', `${base}/recipients`, body),
    patchRecipient: (id, body) => call('PATCH', `${base}/recipients/${id}`, body),
    deleteRecipient: (id) => call('DELETE', `${base}/recipients/${id}`),
    addField: async (body) => (await call('POST', `${base}/fields`, body)),
    patchField: (id, body) => call('PATCH', `${base}/fields/${id}`, body),
    deleteField: (id) => call('DELETE', `${base}/fields/${id}`),
    send: () => call('POST', `${base}/send`, {}),
  };
}

// A template's recipient and field as the editor holds a document's: the template API shows
// them in the other signing service's shape (authOptions as JSON text, positions as decimal
// strings), and a recipient without an address is a placeholder (the e-mail left out).
const asRecipient = (r) => ({ ...r, authOptions: r.authOptions ? JSON.parse(r.authOptions) : { accessAuth: [], actionAuth: [] } });
const asField = (f) => ({
  id: f.id,
  recipientId: f.recipientId,
  type: f.type,
  pageNumber: f.page,
  pageX: Number(f.positionX),
  pageY: Number(f.positionY),
  pageWidth: Number(f.width),
  pageHeight: Number(f.height),
  fieldMeta: f.fieldMeta,
});
const asDocument = (t) => ({
  id: t.id,
  title: t.title,
  externalId: t.externalId,
  meta: t.templateMeta,
  recipients: t.Recipient.map(asRecipient),
  fields: t.Field.map(asField),
});
// An empty e-mail is none: the template API gives the recipient a placeholder address.
const withoutEmptyEmail = (body) => {
  if (body.email !== '') return body;
  const { email, ...rest } = body;
  return rest;
};

function templateSubject(base) {
  return {
    load: async () => asDocument(await call('GET', base)),
    update: async (body) => asDocument(await call('PATCH', base, body)),
    addRecipient: async (body) => asRecipient(await call('POST', `${base}/recipients`, withoutEmptyEmail(body))),
    patchRecipient: async (id, body) => asRecipient(await call('PATCH', `${base}/recipients/${id}`, body.email === '' ? { ...body, email: null } : body)),
    deleteRecipient: (id) => call('DELETE', `${base}/recipients/${id}`),
    addField: async (body) => ({ fields: (await call('POST', `${base}/fields`, body)).fields.map(asField) }),
    patchField: async (id, body) => asField(await call('PATCH', `${base}/fields/${id}`, body)),
    deleteField: (id) => call('DELETE', `${base}/fields/${id}`),
    // Everything is saved as it is made: saving the template is reading it back.
    send: () => call('GET', base),
  };
}
