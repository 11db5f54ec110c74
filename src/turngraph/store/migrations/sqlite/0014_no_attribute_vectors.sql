-- Attributes are found by their words (fts_attributes) and through their entity; recall
-- searches no attribute by vector. They are no longer queued to embed, and the vectors
-- written for them before are dropped.
DROP TRIGGER attributes_index_insert;
CREATE TRIGGER attributes_index_insert AFTER INSERT ON attributes BEGIN
    INSERT INTO fts_attributes (rowid, mem, text)
        VALUES (new.rowid, 'm' || new.memory_id,
                (SELECT name FROM entities WHERE id = new.entity_id) || ' '
                || replace(new.key, '_', ' ') || ' ' || new.value);
END;
DROP TRIGGER attributes_index_delete;
CREATE TRIGGER attributes_index_delete AFTER DELETE ON attributes BEGIN
    DELETE FROM fts_attributes WHERE rowid = old.rowid;
END;
DELETE FROM index_queue WHERE kind = 'attribute';
DELETE FROM vectors WHERE kind = 'attribute';
