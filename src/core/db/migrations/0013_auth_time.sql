-- OpenID Connect: when the user last signed in (the session's start: password, and second
-- factor if any), carried by the code into the ID token's `auth_time` and checked against the
-- request's `max_age`. NULL for codes issued before (they live minutes; their ID tokens go
-- without `auth_time`).
ALTER TABLE oauth_codes ADD COLUMN auth_time INTEGER;
