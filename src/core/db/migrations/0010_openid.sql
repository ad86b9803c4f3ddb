-- OpenID Connect: the authorization request's `nonce`, carried by its code into the ID token.
ALTER TABLE oauth_codes ADD COLUMN nonce TEXT;
-- Whether the authorization request named its redirect URI (0: the client's only registered
-- one was used, and the token request need not repeat it).
ALTER TABLE oauth_codes ADD COLUMN redirect_uri_sent INTEGER NOT NULL DEFAULT 1;
