// The signing service's official TypeScript client (@documenso/sdk-typescript 0.9.1 from npm,
// unchanged) against Docket's API v2: every read operation, folders and attachments, with the client's own answer
// validation (zod). Driven by tests/it/documenso_v2.rs, which made the objects and passes their
// numbers; prints one JSON line of what it found. Any failure throws (the exit status says so).

import { createRequire } from "node:module";

// The package is CommonJS without an exports map: required as its README shows.
const require = createRequire(import.meta.url);
const { Documenso } = require("@documenso/sdk-typescript");
const errors = require("@documenso/sdk-typescript/models/errors");

const env = process.env;
const DOC = Number(env.DOC);
const TEMPLATE = Number(env.TEMPLATE);
const CANCELLED = Number(env.CANCELLED);
const OTHER_DOC = Number(env.OTHER_DOC);
const ENVELOPE = env.ENVELOPE;
const OTHER_ENVELOPE = env.OTHER_ENVELOPE;

const check = (cond, what) => {
  if (!cond) throw new Error(`check failed: ${what}`);
};

async function refusedWith(kind, call) {
  try {
    await call();
  } catch (e) {
    if (e instanceof kind) return e;
    throw e;
  }
  throw new Error(`no ${kind.name}`);
}

const d = new Documenso({ apiKey: env.KEY, serverURL: env.DOCKET_V2 });
const out = {};

const envelope = await d.envelopes.get({ envelopeId: ENVELOPE });
check(envelope.id === ENVELOPE && envelope.type === "DOCUMENT", "the envelope");
out.envelope = {
  title: envelope.title,
  status: envelope.status,
  secondaryId: envelope.secondaryId,
  recipients: envelope.recipients.map((r) => r.email).sort(),
  fieldTypes: [...new Set(envelope.fields.map((f) => f.type))].sort(),
  items: envelope.envelopeItems.map((i) => i.id),
  teamUrl: envelope.team.url,
};

const found = await d.envelope.envelopeFind({ page: 1, perPage: 10 });
out.find = { count: found.count, types: [...new Set(found.data.map((e) => e.type))].sort() };
const templatesOnly = await d.envelope.envelopeFind({ type: "TEMPLATE" });
out.findTemplates = templatesOnly.data.map((e) => e.secondaryId);
const paged = await d.envelope.envelopeFind({ page: 2, perPage: 1 });
out.page2 = { currentPage: paged.currentPage, perPage: paged.perPage, totalPages: paged.totalPages, n: paged.data.length };

const many = await d.envelope.envelopeGetMany({ ids: { type: "envelopeId", ids: [ENVELOPE, OTHER_ENVELOPE, "envelope_nonsense"] } });
out.many = many.data.map((e) => e.id);

const log = await d.envelope.envelopeAuditLogFind({ envelopeId: ENVELOPE });
out.audit = log.data.map((e) => e.type);

const doc = await d.documents.get({ documentId: DOC });
out.document = { id: doc.id, envelopeId: doc.envelopeId, fields: doc.fields.length, dataType: doc.documentData.type };
const docs = await d.documents.find({ perPage: 100 });
out.documents = docs.data.map((x) => x.id).sort();
const cancelled = await d.documents.get({ documentId: CANCELLED });
out.cancelledStatus = cancelled.status;
out.documentsMany = (await d.document.documentGetMany({ documentIds: [DOC, OTHER_DOC] })).data.map((x) => x.id);

const tpl = await d.templates.get({ templateId: TEMPLATE });
out.template = { id: tpl.id, title: tpl.title, recipients: tpl.recipients.length, fields: tpl.fields.length };
out.templates = (await d.templates.find({})).data.map((t) => t.id);
out.templatesMany = (await d.template.templateGetMany({ templateIds: [TEMPLATE] })).data.map((t) => t.id);

// Another workspace's objects are not found, with the client's typed errors.
const refused = {};
let e = await refusedWith(errors.EnvelopeGetNotFoundError, () => d.envelopes.get({ envelopeId: OTHER_ENVELOPE }));
refused.envelope = [e.code, e.message];
e = await refusedWith(errors.DocumentGetNotFoundError, () => d.documents.get({ documentId: OTHER_DOC }));
refused.document = e.code;
e = await refusedWith(errors.EnvelopeFindBadRequestError, () => d.envelope.envelopeFind({ perPage: 1000 }));
refused.perPage = (e.issues ?? []).map((i) => i.message);
out.refused = refused;

const bad = new Documenso({ apiKey: "api_wrongwrongwrong", serverURL: env.DOCKET_V2 });
e = await refusedWith(errors.EnvelopeGetUnauthorizedError, () => bad.envelopes.get({ envelopeId: ENVELOPE }));
out.unauthorized = e.code;

// Folders and attachments: made, found, changed and removed through the client's own calls,
// every answer validated by its schemas; another account's objects are 404.
const leases = await d.folders.create({ name: "Leases" });
check(leases.type === "DOCUMENT" && leases.parentId === null && !leases.pinned, "a root folder");
const year = await d.folders.create({ name: "2026", parentId: leases.id });
const offers = await d.folders.create({ name: "Offers", type: "TEMPLATE" });
const under = await d.folders.find({ parentId: leases.id, page: 1, perPage: 10 });
const ofTemplates = await d.folders.find({ type: "TEMPLATE" });
const moved = await d.folders.update({ folderId: year.id, data: { name: "2027", pinned: true, parentId: null } });
const folders = {
  made: [leases.name, year.name, offers.type],
  yearParent: year.parentId === leases.id,
  under: under.data.map((f) => f.name),
  templates: ofTemplates.data.map((f) => f.name),
  moved: [moved.name, moved.pinned, moved.parentId],
};
e = await refusedWith(errors.FolderCreateFolderBadRequestError, () => d.folders.create({ name: "" }));
folders.emptyName = (e.issues ?? []).map((i) => i.message);
folders.deleted = [];
for (const f of [leases, year, offers]) folders.deleted.push((await d.folders.delete({ folderId: f.id })).success);
folders.left = (await d.folders.find({})).count;
e = await refusedWith(errors.APIError, () => d.folders.delete({ folderId: leases.id }));
folders.deletedAgain = e.statusCode;
out.folders = folders;

const link = { label: "Terms", data: "https://example.com/terms" };
const made = await d.envelopes.attachments.create({ envelopeId: ENVELOPE, data: link });
const byNumber = await d.documents.attachments.create({ documentId: DOC, data: { label: "Map", data: "https://example.com/map" } });
const foundLinks = await d.envelopes.attachments.find({ envelopeId: ENVELOPE });
const changed = await d.envelopes.attachments.update({ id: made.id, data: { label: "Terms 2", data: "https://example.com/t2" } });
const changedByNumber = await d.documents.attachments.update({ id: byNumber.id, data: { label: "Map 2", data: "https://example.com/m2" } });
const after = await d.documents.attachments.find({ documentId: DOC });
const attachments = {
  found: foundLinks.data.map((a) => [a.type, a.label, a.data]),
  changed: [changed.success, changedByNumber.success],
  after: after.data.map((a) => a.label),
};
e = await refusedWith(errors.EnvelopeAttachmentCreateBadRequestError, () =>
  d.envelopes.attachments.create({ envelopeId: ENVELOPE, data: { label: "X", data: "javascript:alert(1)" } }));
attachments.badUrl = (e.issues ?? []).map((i) => i.message);
e = await refusedWith(errors.EnvelopeAttachmentFindNotFoundError, () => d.envelopes.attachments.find({ envelopeId: OTHER_ENVELOPE }));
attachments.otherEnvelope = e.code;
e = await refusedWith(errors.DocumentAttachmentFindNotFoundError, () => d.documents.attachments.find({ documentId: OTHER_DOC }));
attachments.otherDocument = e.code;
e = await refusedWith(errors.APIError, () => d.documents.attachments.create({ documentId: OTHER_DOC, data: link }));
attachments.createOnOther = e.statusCode;
attachments.deleted = [
  (await d.envelopes.attachments.delete({ id: made.id })).success,
  (await d.documents.attachments.delete({ id: byNumber.id })).success,
];
attachments.left = (await d.envelopes.attachments.find({ envelopeId: ENVELOPE })).data.length;
out.attachments = attachments;

console.log(JSON.stringify(out));
