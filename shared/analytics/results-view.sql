SELECT
  result_id, transaction_id, customer_reference, user_id, product, result, status, completed, stored_at, day,
  environment, rtw_type, identity_result, right_to_work_result, face_verify_result, driving_license_result,
  payroll_tax_statement_result, digital_signing_result, vog_result, face_link_result,
  additional_document_results, messages, image_count, file_count, document_type, issuing_state,
  completed_to_stored_seconds, document_validation_approved, document_validation_not_applicable,
  sanction_list_result, lost_and_stolen_result, vog_status, additional_document_types, identity_messages,
  right_to_work_messages, face_verify_messages, driving_license_messages, payroll_tax_statement_messages,
  digital_signing_messages, vog_messages, face_link_messages, version, previous_result_id, previous_result
FROM (
  SELECT *, row_number() OVER (PARTITION BY result_id ORDER BY coalesce(version, 1) DESC) AS version_rank
  FROM result_rows
) latest
WHERE version_rank = 1
