-- Each memory's number of vectors of each kind, and how many of them are not in the HNSW
-- index (postgres_vectors): kept by a trigger in the transaction that changes the rows, so a
-- search reads them from one row instead of counting the memory's vectors. A vector joins
-- the index (indexed) only once its memory holds more of its kind than are searched exactly:
-- a small memory never pays for index upkeep it would not use.
ALTER TABLE vectors ADD COLUMN indexed boolean NOT NULL DEFAULT false;

CREATE TABLE vector_stats (
    memory_id bigint NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    kind text COLLATE "C" NOT NULL,
    vectors bigint NOT NULL,
    unindexed bigint NOT NULL,
    PRIMARY KEY (memory_id, kind)
);

INSERT INTO vector_stats (memory_id, kind, vectors, unindexed)
    SELECT memory_id, kind, count(*), count(*) FROM vectors GROUP BY memory_id, kind;

CREATE FUNCTION vectors_counted() RETURNS trigger AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        -- No insert here: a memory being deleted takes its vector_stats rows with it.
        UPDATE vector_stats SET vectors = vectors - 1,
            unindexed = unindexed - (NOT OLD.indexed)::int
            WHERE memory_id = OLD.memory_id AND kind = OLD.kind;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO vector_stats AS s (memory_id, kind, vectors, unindexed)
            VALUES (NEW.memory_id, NEW.kind, 1, (NOT NEW.indexed)::int)
            ON CONFLICT (memory_id, kind) DO UPDATE
            SET vectors = s.vectors + 1, unindexed = s.unindexed + excluded.unindexed;
    END IF;
    RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER vectors_counted AFTER INSERT OR DELETE OR UPDATE OF indexed ON vectors
    FOR EACH ROW EXECUTE FUNCTION vectors_counted();
