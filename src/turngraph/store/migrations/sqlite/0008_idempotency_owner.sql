-- The process that holds a pending idempotency claim: the claim is taken over only once that
-- process is gone, never while its request still runs.
ALTER TABLE http_idempotency ADD COLUMN owner TEXT;
