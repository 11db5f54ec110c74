-- Attributes are found by their words and through their entity; recall searches no
-- attribute by vector. They are no longer queued to embed, and the vectors written for them
-- before are dropped.
DROP TRIGGER attributes_indexed ON attributes;
DROP FUNCTION attributes_indexed();
DELETE FROM index_queue WHERE kind = 'attribute';
DELETE FROM vectors WHERE kind = 'attribute';
