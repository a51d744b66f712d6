-- Section outcomes: for each section of the stored results, how many results had it, by outcome
-- (APPROVED, DISAPPROVED, TECHNICAL_REJECT, UNKNOWN).
SELECT section, outcome, count(*) AS results
FROM (
  SELECT
    s.section,
    CASE s.section
      WHEN 'identity' THEN identity_result
      WHEN 'right_to_work' THEN right_to_work_result
      WHEN 'face_verify' THEN face_verify_result
      WHEN 'driving_license' THEN driving_license_result
      WHEN 'payroll_tax_statement' THEN payroll_tax_statement_result
      WHEN 'digital_signing' THEN digital_signing_result
      WHEN 'vog' THEN vog_result
      WHEN 'face_link' THEN face_link_result
    END AS outcome
  FROM results
  CROSS JOIN (
    VALUES ('identity'), ('right_to_work'), ('face_verify'), ('driving_license'), ('payroll_tax_statement'),
      ('digital_signing'), ('vog'), ('face_link')
  ) AS s (section)
  WHERE status = 'STORED'
) per_section
WHERE outcome IS NOT NULL
GROUP BY section, outcome
ORDER BY section, outcome
