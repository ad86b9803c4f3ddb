-- A booking as clients see it, without its organizer: the JSON the booking serialises to,
-- written with the row by every change of it (create, cancel), so that listings copy it
-- instead of rebuilding it from the columns (issue 27). NULL for the rows from before this
-- version: those are rendered from their columns when read.
ALTER TABLE bookings ADD COLUMN rendered TEXT;
