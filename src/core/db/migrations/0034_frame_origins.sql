-- The origins that may frame the signing pages of an account's or a team's documents (issue
-- 57): `/embed/sign/...` and `/embed/direct/...` answer `Content-Security-Policy:
-- frame-ancestors` with them. One origin a line, as `signing::workspaces::framing` checked and
-- wrote it; NULL: none, so every signing page stays unframeable as before.
ALTER TABLE users ADD COLUMN frame_origins TEXT;
ALTER TABLE teams ADD COLUMN frame_origins TEXT;
