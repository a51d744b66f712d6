-- Time from completed to stored, per product: results with a known completion time, and the median,
-- 90th percentile and maximum seconds between completion at the service and storage by the pipeline
-- (to the tenth of a second: counted per 0.1 s, so a million results need no sort).
WITH histogram AS (
  SELECT product, round(completed_to_stored_seconds, 1) AS seconds, count(*) AS n
  FROM results
  WHERE status = 'STORED' AND completed_to_stored_seconds IS NOT NULL
  GROUP BY product, round(completed_to_stored_seconds, 1)
),
cumulative AS (
  SELECT
    product,
    seconds,
    sum(n) OVER (PARTITION BY product ORDER BY seconds ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS up_to,
    sum(n) OVER (PARTITION BY product) AS total
  FROM histogram
)
SELECT
  product,
  max(total) AS results,
  round(
    (min(CASE WHEN up_to >= floor((total + 1) / 2.0) THEN seconds END)
      + min(CASE WHEN up_to >= ceil((total + 1) / 2.0) THEN seconds END)) / 2.0,
    1
  ) AS median_seconds,
  round(min(CASE WHEN up_to >= ceil(0.9 * total) THEN seconds END), 1) AS p90_seconds,
  round(max(seconds), 1) AS max_seconds
FROM cumulative
GROUP BY product
ORDER BY product
