#!/usr/bin/env python3
"""Prints the messages of a Maildir (aiosmtpd's Mailbox handler) as JSON: to, subject, the
decoded text part, and each attachment saved under OUT_DIR.

Usage: maildir.py MAILDIR OUT_DIR
"""
import email
import email.policy
import json
import mailbox
import os
import sys

maildir, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
messages = []
for key, raw in mailbox.Maildir(maildir, factory=None, create=False).items():
    msg = email.message_from_bytes(raw.as_bytes(), policy=email.policy.default)
    text = msg.get_body(preferencelist=("plain",))
    html = msg.get_body(preferencelist=("html",))
    attachments = []
    for i, part in enumerate(msg.iter_attachments()):
        path = os.path.join(out, f"{key}-{i}-{part.get_filename() or 'part'}")
        with open(path, "wb") as f:
            f.write(part.get_payload(decode=True))
        attachments.append({"filename": part.get_filename(), "path": path,
                            "contentType": part.get_content_type()})
    messages.append({
        "to": str(msg["To"]), "subject": str(msg["Subject"]),
        "text": text.get_content() if text else "", "html": html.get_content() if html else "",
        "attachments": attachments,
    })
print(json.dumps(messages))
