-- Unavailable results: results the service answered 404 for (deleted after its retention period, or
-- never there), newest first.
SELECT result_id, transaction_id, product, completed, stored_at AS recorded_at, day
FROM results
WHERE status = 'UNAVAILABLE'
ORDER BY stored_at DESC, result_id
