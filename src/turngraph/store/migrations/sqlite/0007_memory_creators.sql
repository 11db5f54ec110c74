-- Creating memories is an admin right that an admin may extend to a principal.
ALTER TABLE principals ADD COLUMN create_memories INTEGER NOT NULL DEFAULT 0;
