-- Recall reads a top entity's strongest relationships (neighbour_relationships): those it is
-- the source of and those it is the target of, each in the order of these indexes, so a hub
-- with thousands of relationships costs two short index walks instead of a read and sort of
-- all of them. The target index also serves what relationships_by_target served.
CREATE INDEX relationships_strongest_from
    ON relationships (memory_id, source_id, weight DESC, updated_at DESC, id);
CREATE INDEX relationships_strongest_to
    ON relationships (memory_id, target_id, weight DESC, updated_at DESC, id);
DROP INDEX relationships_by_target;
