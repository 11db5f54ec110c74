-- Recall: full-text indexes kept by triggers, vectors beside their rows, and a queue of rows
-- whose vectors are missing or stale (filled right after each write, outside its transaction).
-- Each full-text row carries its memory as an indexed token ('m' || memory_id) so a search
-- intersects with one memory's rows before scoring; bm25 gives that column weight 0.
CREATE VIRTUAL TABLE fts_observations USING fts5(
    mem, title, content, context, tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE fts_entities USING fts5(
    mem, name, description, queries, tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE fts_attributes USING fts5(
    mem, text, tokenize = 'porter unicode61'
);

CREATE TABLE vectors (
    kind TEXT NOT NULL,                   -- observation | entity | attribute
    ref INTEGER NOT NULL,                 -- the row's id (attributes: rowid)
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    data BLOB NOT NULL,                   -- float32, normalized
    PRIMARY KEY (kind, ref)
);
CREATE INDEX vectors_by_memory ON vectors (memory_id, kind);

CREATE TABLE index_queue (
    kind TEXT NOT NULL,
    ref INTEGER NOT NULL,
    memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    PRIMARY KEY (kind, ref)
);
CREATE INDEX index_queue_by_memory ON index_queue (memory_id);

CREATE TRIGGER observations_index_insert AFTER INSERT ON observations BEGIN
    INSERT INTO fts_observations (rowid, mem, title, content, context)
        VALUES (new.id, 'm' || new.memory_id, new.title, new.content, '');
    INSERT OR REPLACE INTO index_queue (kind, ref, memory_id)
        VALUES ('observation', new.id, new.memory_id);
END;
CREATE TRIGGER observations_index_update AFTER UPDATE OF title, content ON observations BEGIN
    UPDATE fts_observations SET title = new.title, content = new.content WHERE rowid = new.id;
    INSERT OR REPLACE INTO index_queue (kind, ref, memory_id)
        VALUES ('observation', new.id, new.memory_id);
END;
CREATE TRIGGER observations_index_delete AFTER DELETE ON observations BEGIN
    DELETE FROM fts_observations WHERE rowid = old.id;
    DELETE FROM vectors WHERE kind IN ('observation', 'window') AND ref = old.id;
    DELETE FROM index_queue WHERE kind IN ('observation', 'window') AND ref = old.id;
END;

CREATE TRIGGER entities_index_insert AFTER INSERT ON entities BEGIN
    INSERT INTO fts_entities (rowid, mem, name, description, queries)
        VALUES (new.id, 'm' || new.memory_id, new.name, new.description, new.retrieval_queries);
    INSERT OR REPLACE INTO index_queue (kind, ref, memory_id)
        VALUES ('entity', new.id, new.memory_id);
END;
CREATE TRIGGER entities_index_update AFTER UPDATE OF name, description, retrieval_queries
    ON entities BEGIN
    UPDATE fts_entities SET name = new.name, description = new.description,
        queries = new.retrieval_queries WHERE rowid = new.id;
    INSERT OR REPLACE INTO index_queue (kind, ref, memory_id)
        VALUES ('entity', new.id, new.memory_id);
END;
CREATE TRIGGER entities_index_delete AFTER DELETE ON entities BEGIN
    DELETE FROM fts_entities WHERE rowid = old.id;
    DELETE FROM vectors WHERE kind = 'entity' AND ref = old.id;
    DELETE FROM index_queue WHERE kind = 'entity' AND ref = old.id;
END;

CREATE TRIGGER attributes_index_insert AFTER INSERT ON attributes BEGIN
    INSERT INTO fts_attributes (rowid, mem, text)
        VALUES (new.rowid, 'm' || new.memory_id,
                (SELECT name FROM entities WHERE id = new.entity_id) || ' '
                || replace(new.key, '_', ' ') || ' ' || new.value);
    INSERT OR REPLACE INTO index_queue (kind, ref, memory_id)
        VALUES ('attribute', new.rowid, new.memory_id);
END;
CREATE TRIGGER attributes_index_delete AFTER DELETE ON attributes BEGIN
    DELETE FROM fts_attributes WHERE rowid = old.rowid;
    DELETE FROM vectors WHERE kind = 'attribute' AND ref = old.rowid;
    DELETE FROM index_queue WHERE kind = 'attribute' AND ref = old.rowid;
END;

-- Existing rows (databases made before this migration) enter the indexes too.
INSERT INTO fts_observations (rowid, mem, title, content, context)
    SELECT id, 'm' || memory_id, title, content, '' FROM observations;
INSERT INTO fts_entities (rowid, mem, name, description, queries)
    SELECT id, 'm' || memory_id, name, description, retrieval_queries FROM entities;
INSERT INTO fts_attributes (rowid, mem, text)
    SELECT a.rowid, 'm' || a.memory_id, e.name || ' ' || replace(a.key, '_', ' ') || ' ' || a.value
    FROM attributes a JOIN entities e ON e.id = a.entity_id;
INSERT INTO index_queue (kind, ref, memory_id) SELECT 'observation', id, memory_id FROM observations;
INSERT INTO index_queue (kind, ref, memory_id) SELECT 'entity', id, memory_id FROM entities;
INSERT INTO index_queue (kind, ref, memory_id) SELECT 'attribute', rowid, memory_id FROM attributes;

-- A per-memory counter of vector changes: recall caches a memory's vectors until it moves.
ALTER TABLE memories ADD COLUMN index_version INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER vectors_version_insert AFTER INSERT ON vectors BEGIN
    UPDATE memories SET index_version = index_version + 1 WHERE id = new.memory_id;
END;
CREATE TRIGGER vectors_version_delete AFTER DELETE ON vectors BEGIN
    UPDATE memories SET index_version = index_version + 1 WHERE id = old.memory_id;
END;
