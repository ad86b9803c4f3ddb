"""The signing service's official Python client (documenso-sdk 0.6.0 from PyPI, unchanged)
against Docket's API v2: every read operation, with the client's own answer validation
(pydantic). Driven by tests/it/documenso_v2.rs, which made the objects and passes their
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

# The client reads every number as a float (`3.0`); the test compares whole numbers.
print(json.dumps(out), flush=True)
