"""An OpenID Connect relying party written with authlib (requests integration), as an app would
use it, against Docket. tests/it/clients.rs plays the user: this script prints the authorization
URL it built, reads back the URL the browser was redirected to, then redeems the code, verifies
the ID token's signature with the published JWK Set and its claims, reads userinfo and
refreshes. Its findings go to stdout as JSON.

Environment: ISSUER, CLIENT_ID, CLIENT_SECRET, REDIRECT_URI (and AUTHLIB_INSECURE_TRANSPORT=1,
since test servers listen on plain HTTP on loopback).
"""

import json
import os
import sys

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, jwt
from authlib.oidc.core import CodeIDToken

issuer = os.environ["ISSUER"]
client_id = os.environ["CLIENT_ID"]
meta = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
session = OAuth2Session(
    client_id,
    os.environ["CLIENT_SECRET"],
    scope="openid profile email",
    redirect_uri=os.environ["REDIRECT_URI"],
    code_challenge_method="S256",
)
nonce = generate_token(20)
verifier = generate_token(48)
url, state = session.create_authorization_url(
    meta["authorization_endpoint"], nonce=nonce, code_verifier=verifier
)
print(json.dumps({"authorization_url": url}), flush=True)

back = sys.stdin.readline().strip()
token = session.fetch_token(
    meta["token_endpoint"], authorization_response=back, code_verifier=verifier, state=state
)
keys = JsonWebKey.import_key_set(requests.get(meta["jwks_uri"], timeout=10).json())
claims = jwt.decode(
    token["id_token"],
    keys,
    claims_cls=CodeIDToken,
    claims_options={"iss": {"values": [meta["issuer"]]}},
    claims_params={"nonce": nonce, "client_id": client_id},
)
claims.validate()
userinfo = session.get(meta["userinfo_endpoint"], timeout=10).json()
refreshed = session.refresh_token(meta["token_endpoint"])

print(
    json.dumps(
        {
            "claims": dict(claims),
            "algorithms": meta["id_token_signing_alg_values_supported"],
            "userinfo": userinfo,
            "refreshed": {"access_token": bool(refreshed.get("access_token"))},
        }
    ),
    flush=True,
)
