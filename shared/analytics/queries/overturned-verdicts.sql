-- Overturned verdicts: every verdict the service changed after the pipeline stored it (a manual review),
-- newest first: which transaction (and result), when the service completed the change, from what to what.
SELECT transaction_id, result_id, previous_result_id, version, completed AS changed_at,
  previous_result AS from_result, result AS to_result, product, day
FROM result_rows
WHERE version > 1
ORDER BY completed DESC, transaction_id, version DESC
