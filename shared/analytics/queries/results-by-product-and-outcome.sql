-- Results by product and outcome: how many results each product had, by overall result
-- (UNAVAILABLE for results the service no longer had).
SELECT product, coalesce(result, status) AS outcome, count(*) AS results
FROM results
GROUP BY product, coalesce(result, status)
ORDER BY product, outcome
