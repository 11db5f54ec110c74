-- turngraph: table rebuild
-- A memory's name is unique within its organization, no longer across the database: two
-- organizations may each have a memory called "notes", and creating one never tells a caller
-- that another organization uses the name. SQLite cannot change a table's constraints in
-- place, so the table is rebuilt: every row keeps its id, so the rows that reference a memory
-- (and the triggers that read this table) stay as they are.
CREATE TABLE memories_rebuilt (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    visibility TEXT NOT NULL,
    retrieval TEXT NOT NULL,               -- JSON, fixed at creation
    created_at TEXT NOT NULL,
    seq INTEGER NOT NULL DEFAULT 0,        -- write counter: orders assertions, newest wins
    index_version INTEGER NOT NULL DEFAULT 0,
    organization TEXT NOT NULL DEFAULT 'default',
    UNIQUE (organization, name)
);
INSERT INTO memories_rebuilt (id, name, visibility, retrieval, created_at, seq, index_version,
                              organization)
    SELECT id, name, visibility, retrieval, created_at, seq, index_version, organization
    FROM memories;
DROP TABLE memories;
ALTER TABLE memories_rebuilt RENAME TO memories;
