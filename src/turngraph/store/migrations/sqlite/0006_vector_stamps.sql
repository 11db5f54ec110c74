-- Each vector records the memory's index version it was written at, so a cache of the
-- memory's vectors can fetch only what changed since it was filled.
ALTER TABLE vectors ADD COLUMN stamp INTEGER NOT NULL DEFAULT 0;
CREATE INDEX vectors_by_stamp ON vectors (memory_id, kind, stamp);
