-- OpenID Connect: the authorization request's `nonce`, carried by its code into the ID token.
ALTER TABLE oauth_codes ADD COLUMN nonce TEXT;
