-- A lexical-only memory (retrieval embedder "none") keeps no vectors, so its rows never enter
-- the queue of rows to embed: the triggers that queue a row skip such memories, and what they
-- queued before this migration is dropped.
DROP TRIGGER observations_index_insert;
DROP TRIGGER observations_index_update;
DROP TRIGGER entities_index_insert;
DROP TRIGGER entities_index_update;
DROP TRIGGER attributes_index_insert;

CREATE TRIGGER observations_index_insert AFTER INSERT ON observations BEGIN
    INSERT INTO fts_observations (rowid, mem, title, content, context)
        VALUES (new.id, 'm' || new.memory_id, new.title, new.content, '');
    INSERT OR REPLACE INTO index_queue (kind, ref, memory_id)
        SELECT 'observation', new.id, new.memory_id FROM memories
        WHERE id = new.memory_id AND json_extract(retrieval, '$.embedder') IS NOT 'none';
END;
CREATE TRIGGER observations_index_update AFTER UPDATE OF title, content ON observations BEGIN
    UPDATE fts_observations SET title = new.title, content = new.content WHERE rowid = new.id;
    INSERT OR REPLACE INTO index_queue (kind, ref, memory_id)
        SELECT 'observation', new.id, new.memory_id FROM memories
        WHERE id = new.memory_id AND json_extract(retrieval, '$.embedder') IS NOT 'none';
END;
CREATE TRIGGER entities_index_insert AFTER INSERT ON entities BEGIN
    INSERT INTO fts_entities (rowid, mem, name, description, queries)
        VALUES (new.id, 'm' || new.memory_id, new.name, new.description, new.retrieval_queries);
    INSERT OR REPLACE INTO index_queue (kind, ref, memory_id)
        SELECT 'entity', new.id, new.memory_id FROM memories
        WHERE id = new.memory_id AND json_extract(retrieval, '$.embedder') IS NOT 'none';
END;
CREATE TRIGGER entities_index_update AFTER UPDATE OF name, description, retrieval_queries
    ON entities BEGIN
    UPDATE fts_entities SET name = new.name, description = new.description,
        queries = new.retrieval_queries WHERE rowid = new.id;
    INSERT OR REPLACE INTO index_queue (kind, ref, memory_id)
        SELECT 'entity', new.id, new.memory_id FROM memories
        WHERE id = new.memory_id AND json_extract(retrieval, '$.embedder') IS NOT 'none';
END;
CREATE TRIGGER attributes_index_insert AFTER INSERT ON attributes BEGIN
    INSERT INTO fts_attributes (rowid, mem, text)
        VALUES (new.rowid, 'm' || new.memory_id,
                (SELECT name FROM entities WHERE id = new.entity_id) || ' '
                || replace(new.key, '_', ' ') || ' ' || new.value);
    INSERT OR REPLACE INTO index_queue (kind, ref, memory_id)
        SELECT 'attribute', new.rowid, new.memory_id FROM memories
        WHERE id = new.memory_id AND json_extract(retrieval, '$.embedder') IS NOT 'none';
END;

DELETE FROM index_queue WHERE memory_id IN (
    SELECT id FROM memories WHERE json_extract(retrieval, '$.embedder') = 'none'
);
