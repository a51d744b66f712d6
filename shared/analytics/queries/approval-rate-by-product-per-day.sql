-- Approval rate by product per day: stored results per product and day of completion, how many were
-- APPROVED, and that share in percent.
SELECT
  day,
  product,
  count(*) AS results,
  sum(CASE WHEN result = 'APPROVED' THEN 1 ELSE 0 END) AS approved,
  round(100 * CAST(sum(CASE WHEN result = 'APPROVED' THEN 1 ELSE 0 END) AS DOUBLE) / count(*), 1) AS approval_rate_pct
FROM results
WHERE status = 'STORED'
GROUP BY day, product
ORDER BY day, product
