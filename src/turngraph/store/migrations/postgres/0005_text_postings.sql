-- Each searchable row's words, kept by triggers in the transaction that changes the row, so
-- that a text search reads the entries of the query's words instead of matching and
-- unpacking the tsvector of every row that holds one of them (postgres_search):
--
-- text_postings: one entry per word (a lexeme of the row's search tsvector) and row, with the
--   word's occurrences under each weight label (a, b, c, d), the labels it occurs under as
--   bits (mask: A 1, B 2, C 4, D 8) and the row's length (its distinct words): all BM25
--   needs of a matching row, in the primary key's index, so a search reads nothing else;
-- text_words: how many rows of a memory hold each word under each combination of labels, so
--   a word's document frequency for any set of fields is a sum of at most 15 counts.
--
-- An update writes only the entries that changed (a row whose length changed changes them
-- all). text_postings has no foreign key to memories (the check would cost a lookup for each
-- entry written): the trigger deletes a row's entries with the row, so a memory's go with
-- its rows.
CREATE TABLE text_postings (
    memory_id bigint NOT NULL,
    kind text COLLATE "C" NOT NULL,
    word text COLLATE "C" NOT NULL,
    key bigint NOT NULL,
    mask smallint NOT NULL,
    a integer NOT NULL,
    b integer NOT NULL,
    c integer NOT NULL,
    d integer NOT NULL,
    len integer NOT NULL,
    PRIMARY KEY (memory_id, kind, word, key) INCLUDE (mask, a, b, c, d, len)
);

CREATE TABLE text_words (
    memory_id bigint NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    kind text COLLATE "C" NOT NULL,
    word text COLLATE "C" NOT NULL,
    mask smallint NOT NULL,
    rows bigint NOT NULL,
    PRIMARY KEY (memory_id, kind, word, mask)
);

-- A row's entries: its tsvector unpacked (a lexeme's weights list one label per position).
CREATE FUNCTION text_entries(search tsvector)
RETURNS TABLE (word text, mask smallint, a integer, b integer, c integer, d integer) AS $$
    SELECT u.lexeme,
        (('A' = ANY (u.weights))::int + 2 * ('B' = ANY (u.weights))::int
            + 4 * ('C' = ANY (u.weights))::int + 8 * ('D' = ANY (u.weights))::int)::smallint,
        cardinality(array_positions(u.weights, 'A')),
        cardinality(array_positions(u.weights, 'B')),
        cardinality(array_positions(u.weights, 'C')),
        cardinality(array_positions(u.weights, 'D'))
    FROM unnest(search) AS u
$$ LANGUAGE sql IMMUTABLE;  -- not STRICT, so that a statement can inline it

CREATE TEMPORARY TABLE rows_posted ON COMMIT DROP AS
    SELECT memory_id, 'observation'::text AS kind, id AS key, search FROM observations
    UNION ALL SELECT memory_id, 'entity', id, search FROM entities
    UNION ALL SELECT memory_id, 'attribute', ref, search FROM attributes;
INSERT INTO text_postings (memory_id, kind, word, key, mask, a, b, c, d, len)
    SELECT r.memory_id, r.kind, e.word, r.key, e.mask, e.a, e.b, e.c, e.d, length(r.search)
    FROM rows_posted AS r, text_entries(r.search) AS e;
INSERT INTO text_words (memory_id, kind, word, mask, rows)
    SELECT memory_id, kind, word, mask, count(*) FROM text_postings
    GROUP BY memory_id, kind, word, mask;
ANALYZE text_postings, text_words;

-- TG_ARGV[0]: the kind of text row the table holds (an attribute is keyed by its ref, the
-- others by their id). Every statement reaches its entries through the whole key of an
-- index (words as arrays), so no plan depends on the tables' statistics.
CREATE FUNCTION text_posted() RETURNS trigger AS $$
DECLARE
    k bigint;
    m bigint;
    was tsvector := '';
    held tsvector := '';
    gone text[];       -- words of the row's entries to delete
    less_words text[]; -- (word, labels) counting one row fewer
    less_masks smallint[];
    more_words text[]; -- (word, labels) counting one row more
    more_masks smallint[];
BEGIN
    IF TG_OP = 'DELETE' THEN
        m := OLD.memory_id;
    ELSE
        m := NEW.memory_id;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        was := OLD.search;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        held := NEW.search;
    END IF;
    IF was = held AND TG_OP = 'UPDATE' THEN
        RETURN NULL;
    END IF;
    IF TG_ARGV[0] = 'attribute' THEN
        k := CASE WHEN TG_OP = 'DELETE' THEN OLD.ref ELSE NEW.ref END;
    ELSE
        k := CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END;
    END IF;
    SELECT coalesce(array_agg(o.word) FILTER (WHERE n.word IS NULL), '{}'),
        coalesce(array_agg(o.word), '{}'), coalesce(array_agg(o.mask), '{}')
        INTO gone, less_words, less_masks
        FROM text_entries(was) AS o LEFT JOIN text_entries(held) AS n USING (word)
        WHERE n.mask IS DISTINCT FROM o.mask;
    SELECT coalesce(array_agg(n.word), '{}'), coalesce(array_agg(n.mask), '{}')
        INTO more_words, more_masks
        FROM text_entries(held) AS n LEFT JOIN text_entries(was) AS o USING (word)
        WHERE o.mask IS DISTINCT FROM n.mask;
    IF cardinality(gone) > 0 THEN
        DELETE FROM text_postings
            WHERE memory_id = m AND kind = TG_ARGV[0] AND word = ANY (gone) AND key = k;
    END IF;
    -- The row's entries, each written only where it is new or changed.
    INSERT INTO text_postings AS p (memory_id, kind, word, key, mask, a, b, c, d, len)
        SELECT m, TG_ARGV[0], e.word, k, e.mask, e.a, e.b, e.c, e.d, length(held)
        FROM text_entries(held) AS e
        ON CONFLICT (memory_id, kind, word, key) DO UPDATE
        SET mask = excluded.mask, a = excluded.a, b = excluded.b, c = excluded.c,
            d = excluded.d, len = excluded.len
        WHERE (p.mask, p.a, p.b, p.c, p.d, p.len) IS DISTINCT FROM
            (excluded.mask, excluded.a, excluded.b, excluded.c, excluded.d, excluded.len);
    IF cardinality(less_words) > 0 THEN
        UPDATE text_words SET rows = rows - 1
            WHERE memory_id = m AND kind = TG_ARGV[0] AND word = ANY (less_words)
            AND mask = less_masks[array_position(less_words, word)];
    END IF;
    IF cardinality(more_words) > 0 THEN
        INSERT INTO text_words AS w (memory_id, kind, word, mask, rows)
            SELECT m, TG_ARGV[0], x.word, x.mask, 1
            FROM unnest(more_words, more_masks) AS x(word, mask)
            ON CONFLICT (memory_id, kind, word, mask) DO UPDATE SET rows = w.rows + 1;
    END IF;
    RETURN NULL;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER observations_posted AFTER INSERT OR UPDATE OF search OR DELETE ON observations
    FOR EACH ROW EXECUTE FUNCTION text_posted('observation');
CREATE TRIGGER entities_posted AFTER INSERT OR UPDATE OF search OR DELETE ON entities
    FOR EACH ROW EXECUTE FUNCTION text_posted('entity');
CREATE TRIGGER attributes_posted AFTER INSERT OR UPDATE OF search OR DELETE ON attributes
    FOR EACH ROW EXECUTE FUNCTION text_posted('attribute');
