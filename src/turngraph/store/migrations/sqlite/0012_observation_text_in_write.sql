-- An observation enters the full-text index from the write that inserts it, with its search
-- context, instead of from a trigger with an empty context that the write then replaced: a
-- turn's window was indexed twice for each new turn. The trigger keeps queueing the row for
-- embedding.
DROP TRIGGER observations_index_insert;
CREATE TRIGGER observations_index_insert AFTER INSERT ON observations BEGIN
    INSERT OR REPLACE INTO index_queue (kind, ref, memory_id)
        SELECT 'observation', new.id, new.memory_id FROM memories
        WHERE id = new.memory_id AND json_extract(retrieval, '$.embedder') IS NOT 'none';
END;
