SELECT
  result_id, transaction_id, customer_reference, user_id, product, result, status, completed, stored_at, day,
  environment, rtw_type, identity_result, right_to_work_result, face_verify_result, driving_license_result,
  payroll_tax_statement_result, digital_signing_result, vog_result, face_link_result,
  additional_document_results, messages, image_count, file_count, document_type, issuing_state
FROM (
  SELECT
    raw.*,
    row_number() OVER (
      PARTITION BY raw.result_id
      ORDER BY CASE WHEN raw.status = 'STORED' THEN 0 ELSE 1 END, raw.stored_at DESC
    ) AS row_in_result
  FROM results_raw raw
) ranked
WHERE row_in_result = 1
