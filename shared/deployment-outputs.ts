/**
 * The outputs of a deployed pipeline: the contract between the construct, which writes them
 * (infra/pipeline-outputs.ts), and the CLI, which finds a deployment's table, bucket, queues, archive,
 * workgroup and secrets by them (`idv --stack`, bin/cli/deployment.ts). Each key with the description an
 * operator reads in the console; a key is absent from a stack when the pipeline has no such resource (the
 * archive on a given bus, the analytics with `analytics: false`). Names only, never a secret value.
 */
export const PIPELINE_OUTPUTS = {
  WebhookBaseUrl:
    'Append <webhook secret>/result and <webhook secret>/upload and register them at the service',
  EventBusName: 'Bus the pipeline publishes its events on',
  EventBusArn: 'ARN of the event bus (for consumer rules)',
  EventArchiveName: 'Archive of every event (idv events replay --archive NAME)',
  ResultsTableName: 'DynamoDB table of stored results',
  DataBucketName: 'S3 bucket of result.json, images and files',
  ResultsQueueUrl: 'SQS queue of resultIds to fetch',
  DeadLetterQueueUrl: 'Dead-letter queue (redrive after fixing)',
  CredentialsSecretName: 'Put {"clientId","clientSecret"} into this secret',
  WebhookSecretName: 'Secret holding the webhook path segment',
  TokenCacheSecretName: 'Shared access-token cache (managed by the functions)',
  AlarmTopicArn: 'SNS topic of every alarm (subscribe your on-call here)',
  DashboardName: 'CloudWatch dashboard of the pipeline',
  AnalyticsWorkgroup: 'Athena workgroup: idv analytics query --workgroup <this>',
  AnalyticsDatabase: 'Glue database of the results view',
  AnalyticsBucketName: 'S3 bucket of the analytics projection',
  AnalystPolicyArn: 'Attach to the roles of analysts',
  ErasurePolicyArn: 'Attach to the role that runs idv results erase (and to no function or analyst)',
  ErasureBounds:
    'Days each copy an erasure cannot reach at once may live (JSON; idv results erase puts them in its receipt)',
  RetentionCheckFunctionName: 'Daily retention check (ResultsPastRetention metric)',
} as const;

/** One output key of a pipeline. */
export type OutputKey = keyof typeof PIPELINE_OUTPUTS;

/** Every output key, in the order the construct writes them. */
export const OUTPUT_KEYS = Object.keys(PIPELINE_OUTPUTS) as readonly OutputKey[];
