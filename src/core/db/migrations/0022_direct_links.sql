-- Direct links (issue 26): which of a template's recipients a visitor of its public link
-- (`/d/{direct_link_token}`) becomes (no foreign key: `templates` comes before `recipients`
-- in the schema; deleting that recipient clears it in the same transaction), the link's token
-- looked up by the page, and the document recipients who came through such a link: they act
-- first, alone, before anyone else is asked.
ALTER TABLE templates ADD COLUMN direct_link_recipient_id INTEGER;
CREATE UNIQUE INDEX templates_direct_link ON templates (direct_link_token);
ALTER TABLE recipients ADD COLUMN direct_link INTEGER NOT NULL DEFAULT 0;
