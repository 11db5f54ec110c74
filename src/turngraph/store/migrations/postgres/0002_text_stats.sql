-- Each memory's number of searchable rows of each kind and the sum of their lengths (a
-- tsvector's length: its distinct words), kept by triggers in the transaction that changes
-- the rows: BM25's row count and mean length are then one row's read, instead of a read of
-- every row's tsvector on each search.
CREATE TABLE text_stats (
    memory_id bigint NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    kind text COLLATE "C" NOT NULL,
    row_count bigint NOT NULL,
    word_count bigint NOT NULL,
    PRIMARY KEY (memory_id, kind)
);

INSERT INTO text_stats (memory_id, kind, row_count, word_count)
    SELECT memory_id, 'observation', count(*), coalesce(sum(length(search)), 0)
    FROM observations GROUP BY memory_id
    UNION ALL
    SELECT memory_id, 'entity', count(*), coalesce(sum(length(search)), 0)
    FROM entities GROUP BY memory_id
    UNION ALL
    SELECT memory_id, 'attribute', count(*), coalesce(sum(length(search)), 0)
    FROM attributes GROUP BY memory_id;

-- TG_ARGV[0]: the kind of text row the table holds.
CREATE FUNCTION text_counted() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO text_stats AS s (memory_id, kind, row_count, word_count)
            VALUES (NEW.memory_id, TG_ARGV[0], 1, length(NEW.search))
            ON CONFLICT (memory_id, kind) DO UPDATE
            SET row_count = s.row_count + 1, word_count = s.word_count + excluded.word_count;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        -- No insert here: a memory being deleted takes its text_stats rows with it.
        UPDATE text_stats SET row_count = row_count - 1,
            word_count = word_count - length(OLD.search)
            WHERE memory_id = OLD.memory_id AND kind = TG_ARGV[0];
        RETURN OLD;
    END IF;
    IF length(NEW.search) <> length(OLD.search) THEN
        UPDATE text_stats SET word_count = word_count + length(NEW.search) - length(OLD.search)
            WHERE memory_id = NEW.memory_id AND kind = TG_ARGV[0];
    END IF;
    RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER observations_counted AFTER INSERT OR UPDATE OR DELETE ON observations
    FOR EACH ROW EXECUTE FUNCTION text_counted('observation');
CREATE TRIGGER entities_counted AFTER INSERT OR UPDATE OR DELETE ON entities
    FOR EACH ROW EXECUTE FUNCTION text_counted('entity');
CREATE TRIGGER attributes_counted AFTER INSERT OR UPDATE OR DELETE ON attributes
    FOR EACH ROW EXECUTE FUNCTION text_counted('attribute');
