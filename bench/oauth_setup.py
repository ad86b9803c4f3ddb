#!/usr/bin/env python3
"""Bench setup for bench/oauth.sh: walks the real OAuth flow (login page, consent, token
endpoint) against a running docket and prints shell assignments for the tokens.
Usage: oauth_setup.py BASE EMAIL PASSWORD CLIENT_ID CLIENT_SECRET REDIRECT_URI"""
import html
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

base, email, password, client_id, secret, redirect = sys.argv[1:7]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


opener = urllib.request.build_opener(NoRedirect)
cookies = {}


def request(method, path, data=None):
    headers = {"cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
    body = None
    if data is not None:
        body = urllib.parse.urlencode(data).encode()
        headers["content-type"] = "application/x-www-form-urlencoded"
    req = urllib.request.Request(base + path if path.startswith("/") else path, data=body, headers=headers, method=method)
    try:
        resp = opener.open(req)
    except urllib.error.HTTPError as e:
        resp = e
    for c in resp.headers.get_all("set-cookie") or []:
        k, v = c.split(";", 1)[0].split("=", 1)
        cookies[k] = v
    return resp.status, resp.headers, resp.read().decode()


def hidden(page):
    return {m[0]: html.unescape(m[1]) for m in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page)}


_, _, page = request("GET", "/auth/login")
form = hidden(page) | {"email": email, "password": password}
status, _, _ = request("POST", "/auth/login", form)
assert status == 303, f"login failed: {status}"
query = urllib.parse.urlencode({"client_id": client_id, "redirect_uri": redirect, "state": "bench", "scope": "READ_PROFILE READ_BOOKING"})
status, _, page = request("GET", "/auth/oauth2/authorize?" + query)
assert status == 200, f"consent page: {status}"
status, headers, _ = request("POST", "/auth/oauth2/authorize", hidden(page) | {"decision": "allow"})
code = urllib.parse.parse_qs(urllib.parse.urlparse(headers["location"]).query)["code"][0]
status, _, body = request("POST", "/api/auth/oauth/token", {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect, "client_id": client_id, "client_secret": secret})
tokens = json.loads(body)
print(f"ACCESS_TOKEN={tokens['access_token']}")
print(f"REFRESH_TOKEN={tokens['refresh_token']}")
