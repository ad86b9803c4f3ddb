-- A team's default document settings (issue 54): what a document or template made in the team
-- takes for each value its request leaves out. NULL is the product's default, so every team
-- that exists before this version keeps making documents as it did.
ALTER TABLE teams ADD COLUMN signing_order TEXT CHECK (signing_order IN ('PARALLEL', 'SEQUENTIAL'));
ALTER TABLE teams ADD COLUMN date_format TEXT;
ALTER TABLE teams ADD COLUMN time_zone TEXT;
ALTER TABLE teams ADD COLUMN redirect_url TEXT;
