-- Descriptions a turn's extraction generated ("Ines (person): Dana sibling of them",
-- "Lisbon (place), mentioned in conversation") were stored as if the turn had described the
-- entity in words. They stop being assertions: an entity no observation describes gets a
-- description rebuilt from its current facts the next time they change, and consolidation no
-- longer reads generated text as evidence of sameness.
UPDATE observation_entities SET description = NULL
WHERE description IS NOT NULL
  AND EXISTS (SELECT 1 FROM turns t WHERE t.observation_id = observation_entities.observation_id)
  AND (
    description LIKE '% (%), mentioned in conversation'
    OR description LIKE (SELECT e.name FROM entities e WHERE e.id = observation_entities.entity_id)
        || ' (%): %'
  );
