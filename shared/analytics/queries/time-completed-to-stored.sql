-- Time from completed to stored, per product: results with a known completion time, and the median,
-- 90th percentile and maximum seconds between completion at the service and storage by the pipeline.
WITH delays AS (
  SELECT
    product,
    completed_to_stored_seconds AS seconds,
    row_number() OVER (PARTITION BY product ORDER BY completed_to_stored_seconds) AS rank_in_product,
    count(*) OVER (PARTITION BY product) AS total
  FROM results
  WHERE status = 'STORED' AND completed_to_stored_seconds IS NOT NULL
)
SELECT
  product,
  max(total) AS results,
  round(avg(CASE WHEN rank_in_product IN (floor((total + 1) / 2.0), ceil((total + 1) / 2.0)) THEN seconds END), 1) AS median_seconds,
  round(max(CASE WHEN rank_in_product = ceil(0.9 * total) THEN seconds END), 1) AS p90_seconds,
  round(max(seconds), 1) AS max_seconds
FROM delays
GROUP BY product
ORDER BY product
