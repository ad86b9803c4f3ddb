"""An app written with requests-oauthlib against the scheduling service's OAuth interface, using
its newer scope names, sent to Docket unchanged but for the base URL and the client's
credentials. tests/it/clients.rs plays the user: this script prints the authorization URL, reads
back the URL the browser was redirected to, then redeems the code, calls the identity check and
refreshes. requests-oauthlib refuses a token answer whose scope names differ from the ones it
asked for, so this also checks that Docket echoes the app's own names.

Environment: ISSUER (the base URL), CLIENT_ID, CLIENT_SECRET, REDIRECT_URI, OAUTHLIB_INSECURE_TRANSPORT=1 (test
servers listen on plain HTTP on loopback).
"""

import json
import os
import sys

from requests_oauthlib import OAuth2Session

base = os.environ["ISSUER"]
client_id = os.environ["CLIENT_ID"]
secret = os.environ["CLIENT_SECRET"]
session = OAuth2Session(
    client_id,
    scope=["BOOKING_READ", "PROFILE_READ"],
    redirect_uri=os.environ["REDIRECT_URI"],
)
url, state = session.authorization_url(base + "/auth/oauth2/authorize")
print(json.dumps({"authorization_url": url}), flush=True)

back = sys.stdin.readline().strip()
token = session.fetch_token(
    base + "/api/auth/oauth/token", client_secret=secret, authorization_response=back
)
me = session.get(base + "/api/auth/oauth/me", timeout=10)
refreshed = session.refresh_token(
    base + "/api/auth/oauth/token", client_id=client_id, client_secret=secret
)
print(
    json.dumps(
        {
            "scope": token["scope"],
            "me_status": me.status_code,
            "me": me.json(),
            "refreshed_scope": refreshed.get("scope"),
        }
    ),
    flush=True,
)
