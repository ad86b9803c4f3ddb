-- Every node's sealer looks for PENDING documents whose signers have all finished every 2 s
-- (a dead node's work is taken over that way): a partial index keeps that look to the PENDING
-- documents instead of the whole table.
CREATE INDEX documents_pending ON documents (id) WHERE status = 'PENDING';
