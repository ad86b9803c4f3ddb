"""The signing service's official Python client (documenso-sdk 0.6.0 from PyPI, unchanged)
against Docket's API v2: every read operation, folders and attachments, with the client's own
answer validation (pydantic). Driven by tests/it/documenso_v2.rs, which made the objects and passes their
numbers; prints one JSON line of what it found. Any failure raises (the exit status says so).
"""

import json
import os

from documenso_sdk import Documenso, models
from documenso_sdk import models as errors

BASE = os.environ["DOCKET_V2"]
DOC = int(os.environ["DOC"])
TEMPLATE = int(os.environ["TEMPLATE"])
CANCELLED = int(os.environ["CANCELLED"])
OTHER_DOC = int(os.environ["OTHER_DOC"])
ENVELOPE = os.environ["ENVELOPE"]
OTHER_ENVELOPE = os.environ["OTHER_ENVELOPE"]

out = {}
with Documenso(api_key=os.environ["KEY"], server_url=BASE) as d:
    env = d.envelopes.get(envelope_id=ENVELOPE)
    assert env.id == ENVELOPE and env.type == models.EnvelopeGetType.DOCUMENT, env
    out["envelope"] = {
        "title": env.title,
        "status": env.status.value,
        "secondaryId": env.secondary_id,
        "recipients": sorted(r.email for r in env.recipients),
        "fieldTypes": sorted({f.type.value for f in env.fields}),
        "items": [i.id for i in env.envelope_items],
        "teamUrl": env.team.url,
    }

    found = d.envelope.envelope_find(page=1, per_page=10)
    out["find"] = {"count": int(found.count), "types": sorted({e.type.value for e in found.data})}
    templates_only = d.envelope.envelope_find(type_=models.EnvelopeFindQueryParamType.TEMPLATE)
    out["findTemplates"] = [e.secondary_id for e in templates_only.data]
    paged = d.envelope.envelope_find(page=2, per_page=1)
    out["page2"] = {"currentPage": int(paged.current_page), "perPage": int(paged.per_page),
                    "totalPages": int(paged.total_pages), "n": len(paged.data)}

    many = d.envelope.envelope_get_many(
        ids={"type": "envelopeId", "ids": [ENVELOPE, OTHER_ENVELOPE, "envelope_nonsense"]})
    out["manyByNumber"] = [e.id for e in d.envelope.envelope_get_many(
        ids={"type": "documentId", "ids": [DOC, OTHER_DOC]}).data]
    out["many"] = [e.id for e in many.data]

    log = d.envelope.envelope_audit_log_find(envelope_id=ENVELOPE)
    out["audit"] = [e.type.value for e in log.data]

    doc = d.documents.get(document_id=DOC)
    out["document"] = {"id": int(doc.id), "envelopeId": doc.envelope_id,
                       "fields": len(doc.fields), "dataType": doc.document_data.type.value}
    docs = d.documents.find(per_page=100)
    out["documents"] = sorted(int(x.id) for x in docs.data)
    cancelled = d.documents.get(document_id=CANCELLED)
    out["cancelledStatus"] = cancelled.status.value
    out["documentsMany"] = [int(x.id) for x in d.document.document_get_many(document_ids=[DOC, OTHER_DOC]).data]

    tpl = d.templates.get(template_id=TEMPLATE)
    out["template"] = {"id": int(tpl.id), "title": tpl.title, "recipients": len(tpl.recipients),
                       "fields": len(tpl.fields)}
    out["templates"] = [int(t.id) for t in d.templates.find().data]
    out["templatesMany"] = [int(t.id) for t in d.template.template_get_many(template_ids=[TEMPLATE]).data]

    # Another workspace's objects are not found, with the client's typed errors.
    refused = {}
    try:
        d.envelopes.get(envelope_id=OTHER_ENVELOPE)
    except errors.EnvelopeGetNotFoundError as e:
        refused["envelope"] = [e.data.code, e.data.message]
    try:
        d.documents.get(document_id=OTHER_DOC)
    except errors.DocumentGetNotFoundError as e:
        refused["document"] = e.data.code
    try:
        d.envelope.envelope_find(per_page=1000)
    except errors.EnvelopeFindBadRequestError as e:
        refused["perPage"] = [i.message for i in (e.data.issues or [])]
    out["refused"] = refused

with Documenso(api_key="api_wrongwrongwrong", server_url=BASE) as bad:
    try:
        bad.envelopes.get(envelope_id=ENVELOPE)
    except errors.EnvelopeGetUnauthorizedError as e:
        out["unauthorized"] = e.data.code

# Folders and attachments: made, found, changed and removed through the client's own calls,
# every answer validated by its models; another account's objects are 404.
with Documenso(api_key=os.environ["KEY"], server_url=BASE) as d:
    leases = d.folders.create(name="Leases")
    assert leases.type == models.FolderCreateFolderTypeResponse.DOCUMENT, leases
    assert leases.parent_id is None and not leases.pinned, leases
    year = d.folders.create(name="2026", parent_id=leases.id)
    offers = d.folders.create(name="Offers", type_=models.FolderCreateFolderTypeRequest.TEMPLATE)
    under = d.folders.find(parent_id=leases.id, page=1, per_page=10)
    of_templates = d.folders.find(type_=models.FolderFindFoldersQueryParamType.TEMPLATE)
    moved = d.folders.update(folder_id=year.id, data={"name": "2027", "pinned": True, "parent_id": None})
    folders = {
        "made": [leases.name, year.name, offers.type.value],
        "yearParent": year.parent_id == leases.id,
        "under": [f.name for f in under.data],
        "templates": [f.name for f in of_templates.data],
        "moved": [moved.name, moved.pinned, moved.parent_id],
    }
    try:
        d.folders.create(name="")
    except errors.FolderCreateFolderBadRequestError as e:
        folders["emptyName"] = [i.message for i in (e.data.issues or [])]
    folders["deleted"] = [d.folders.delete(folder_id=f.id).success for f in (leases, year, offers)]
    folders["left"] = int(d.folders.find().count)
    try:
        d.folders.delete(folder_id=leases.id)
    except errors.APIError as e:
        folders["deletedAgain"] = e.status_code
    out["folders"] = folders

    link = {"label": "Terms", "data": "https://example.com/terms"}
    made = d.envelopes.attachments.create(envelope_id=ENVELOPE, data=link)
    by_number = d.documents.attachments.create(
        document_id=DOC, data={"label": "Map", "data": "https://example.com/map"})
    found = d.envelopes.attachments.find(envelope_id=ENVELOPE)
    changed = d.envelopes.attachments.update(
        id=made.id, data={"label": "Terms 2", "data": "https://example.com/t2"})
    changed_by_number = d.documents.attachments.update(
        id=by_number.id, data={"label": "Map 2", "data": "https://example.com/m2"})
    after = d.documents.attachments.find(document_id=DOC)
    attachments = {
        "found": [[a.type.value, a.label, a.data] for a in found.data],
        "changed": [changed.success, changed_by_number.success],
        "after": [a.label for a in after.data],
    }
    try:
        d.envelopes.attachments.create(envelope_id=ENVELOPE, data={"label": "X", "data": "javascript:alert(1)"})
    except errors.EnvelopeAttachmentCreateBadRequestError as e:
        attachments["badUrl"] = [i.message for i in (e.data.issues or [])]
    try:
        d.envelopes.attachments.find(envelope_id=OTHER_ENVELOPE)
    except errors.EnvelopeAttachmentFindNotFoundError as e:
        attachments["otherEnvelope"] = e.data.code
    try:
        d.documents.attachments.find(document_id=OTHER_DOC)
    except errors.DocumentAttachmentFindNotFoundError as e:
        attachments["otherDocument"] = e.data.code
    try:
        d.documents.attachments.create(document_id=OTHER_DOC, data=link)
    except errors.APIError as e:
        attachments["createOnOther"] = e.status_code
    attachments["deleted"] = [d.envelopes.attachments.delete(id=made.id).success,
                              d.documents.attachments.delete(id=by_number.id).success]
    attachments["left"] = len(d.envelopes.attachments.find(envelope_id=ENVELOPE).data)
    out["attachments"] = attachments

# The client reads every number as a float (`3.0`); the test compares whole numbers.
print(json.dumps(out), flush=True)
