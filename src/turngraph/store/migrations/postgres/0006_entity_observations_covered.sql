-- Recall reads each top entity's newest observations (observations_for_entities): a walk of
-- the entity's links by seq. With the observation's id in the index the walk reads nothing
-- else; without it, it visited the table once for each of up to 200 links an entity.
CREATE INDEX observation_entities_newest ON observation_entities (memory_id, entity_id, seq)
    INCLUDE (observation_id);
DROP INDEX observation_entities_by_entity;
