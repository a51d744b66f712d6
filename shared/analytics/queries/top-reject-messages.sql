-- Top reject messages: the reason codes of DISAPPROVED and TECHNICAL_REJECT results, most frequent first.
SELECT reason.message AS message, count(*) AS results
FROM (
  SELECT messages
  FROM results
  WHERE status = 'STORED' AND result IN ('DISAPPROVED', 'TECHNICAL_REJECT')
) rejected
CROSS JOIN UNNEST(rejected.messages) AS reason (message)
GROUP BY reason.message
ORDER BY results DESC, message
LIMIT 20
