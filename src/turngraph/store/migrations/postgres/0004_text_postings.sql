-- Each searchable row's words, each with the weight labels of its occurrences (what unnest()
-- of the row's tsvector gives), kept by triggers in the transaction that changes the row.
-- BM25 reads the counts of a search's words in the matching rows from here, by row and word,
-- instead of unnesting every matching row's whole tsvector (a turn holds 40 words or more).
CREATE TABLE text_postings (
    memory_id bigint NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    kind text COLLATE "C" NOT NULL,
    key bigint NOT NULL,                 -- the row's id (attributes: their ref)
    word text COLLATE "C" NOT NULL,
    weights text[] NOT NULL,
    PRIMARY KEY (memory_id, kind, key, word)
);

INSERT INTO text_postings (memory_id, kind, key, word, weights)
    SELECT t.memory_id, 'observation', t.id, u.lexeme, u.weights
    FROM observations t, unnest(t.search) AS u
    UNION ALL
    SELECT t.memory_id, 'entity', t.id, u.lexeme, u.weights
    FROM entities t, unnest(t.search) AS u
    UNION ALL
    SELECT t.memory_id, 'attribute', t.ref, u.lexeme, u.weights
    FROM attributes t, unnest(t.search) AS u;

-- TG_ARGV[0]: the kind of text row the table holds. A row is keyed by its id, an attribute
-- by its ref (record fields are looked up when the line runs, so each table reads its own).
CREATE FUNCTION text_posted() RETURNS trigger AS $$
DECLARE
    old_key bigint;
    new_key bigint;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.search = OLD.search THEN
            RETURN NULL;
        END IF;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        IF TG_ARGV[0] = 'attribute' THEN old_key := OLD.ref; ELSE old_key := OLD.id; END IF;
        DELETE FROM text_postings
            WHERE memory_id = OLD.memory_id AND kind = TG_ARGV[0] AND key = old_key;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        IF TG_ARGV[0] = 'attribute' THEN new_key := NEW.ref; ELSE new_key := NEW.id; END IF;
        INSERT INTO text_postings (memory_id, kind, key, word, weights)
            SELECT NEW.memory_id, TG_ARGV[0], new_key, u.lexeme, u.weights
            FROM unnest(NEW.search) AS u;
    END IF;
    RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER observations_posted AFTER INSERT OR UPDATE OR DELETE ON observations
    FOR EACH ROW EXECUTE FUNCTION text_posted('observation');
CREATE TRIGGER entities_posted AFTER INSERT OR UPDATE OR DELETE ON entities
    FOR EACH ROW EXECUTE FUNCTION text_posted('entity');
CREATE TRIGGER attributes_posted AFTER INSERT OR UPDATE OR DELETE ON attributes
    FOR EACH ROW EXECUTE FUNCTION text_posted('attribute');
