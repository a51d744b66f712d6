-- Top reject messages: the reason codes of DISAPPROVED and TECHNICAL_REJECT results, most frequent first.
SELECT reason.message AS message, count(*) AS results
FROM results
CROSS JOIN UNNEST(messages) AS reason (message)
WHERE status = 'STORED' AND result IN ('DISAPPROVED', 'TECHNICAL_REJECT')
GROUP BY reason.message
ORDER BY results DESC, message
LIMIT 20
