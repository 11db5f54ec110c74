-- Attributes are found by their words and through their entity; recall searches no
-- attribute by vector. They are no longer queued to embed, and the vectors written for them
-- before are dropped.
DROP TRIGGER attributes_indexed ON attributes;
DROP FUNCTION attributes_indexed();
DELETE FROM index_queue WHERE kind = 'attribute';
-- In one pass: the row triggers that count a memory's vectors and move its index version
-- would update the same rows once per vector dropped (minutes for a memory with hundreds of
-- thousands); the counts and versions are set once here instead.
ALTER TABLE vectors DISABLE TRIGGER vectors_versioned;
ALTER TABLE vectors DISABLE TRIGGER vectors_counted;
UPDATE memories SET index_version = index_version + 1
    WHERE id IN (SELECT DISTINCT memory_id FROM vectors WHERE kind = 'attribute');
DELETE FROM vectors WHERE kind = 'attribute';
DELETE FROM vector_stats WHERE kind = 'attribute';
ALTER TABLE vectors ENABLE TRIGGER vectors_versioned;
ALTER TABLE vectors ENABLE TRIGGER vectors_counted;
