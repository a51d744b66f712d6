/**
 * The integration test a platform team runs in its own account (`npm run integ`, docs/deploy.md, "Prove
 * it in your account"): one stack holding the simulator as the service (a Lambda function behind a
 * function URL), `IdvPipeline` (staging) talking to it, a queue subscribed to the pipeline's events and
 * the test's two helper functions; and an `IntegTest` whose assertions, in order:
 *
 * 1. invoke the driver: credentials into the pipeline's secret, one transaction per `mock-test` outcome;
 * 2. wait until the poll and fetch-result stored the approved result (DynamoDB, by customer reference);
 * 3. read it back (GetItem: status, overall result);
 * 4. wait for both `VerificationResultStored` events on the subscribed queue;
 * 5. erase it with the pipeline's erasure code under `grantErase`;
 * 6. assert it is gone (the index has no item of that reference) and the erasure record says ERASED.
 *
 * integ-runner destroys the stacks afterwards. Everything is `DESTROY` here; the data bucket is the
 * test's own with `autoDeleteObjects` (S3 refuses to delete a bucket with objects in it, and the
 * pipeline's own bucket never empties itself).
 *
 * `test/integ/integ.idv-pipeline.ts` runs this as an app; `test/infra/integ-snapshot.test.ts` synthesises
 * it offline and checks its template.
 */
import * as path from 'node:path';
import {
  ExpectedResult,
  type IApiCall,
  Match as IntegMatch,
  IntegTest,
  WaiterStateMachine,
} from '@aws-cdk/integ-tests-alpha';
import { type App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as events_targets from 'aws-cdk-lib/aws-events-targets';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { LAMBDA_BUNDLING, PROJECT_ROOT } from '../../infra/bundling/lambda-bundling';
import { IdvPipeline } from '../../infra/idv-pipeline';
import { DETAIL_TYPES } from '../../shared/events/names';
import { ERASURE_KEY_SUFFIX } from '../../shared/store/erasure-record';
import { RESULTS_TABLE } from '../../shared/store/table-schema';
import { SIMULATOR_CREDENTIALS_SECRET } from '../../simulator/lambda';
import { DRIVER_ENV, INTEG_TRANSACTIONS } from './handlers/driver';
import { ERASER_ENV } from './handlers/erase';

/** Name of the stack under test (one per account and region at a time). */
export const INTEG_STACK_NAME = 'IdvPipelineInteg';

/** How long the test waits for the poll (every minute) and fetch-result to store and announce. */
const STORE_TIMEOUT = Duration.minutes(10);

/** What {@link buildIntegTest} made, for the offline checks. */
export interface IdvPipelineIntegTest {
  readonly stack: Stack;
  readonly pipeline: IdvPipeline;
  readonly simulator: lambda.Function;
  readonly simulatorUrl: lambda.FunctionUrl;
  readonly driver: lambda.Function;
  readonly eraser: lambda.Function;
  readonly integ: IntegTest;
}

/** What differs between the test's functions. */
interface TestFunctionOptions {
  /** Handler entry relative to the repository root (exports `handler`). */
  readonly entry: string;
  readonly description: string;
  /** @default 512 */
  readonly memorySize?: number;
  /** @default none */
  readonly reservedConcurrentExecutions?: number;
}

/**
 * A Node 24 ARM64 function bundled with the pipeline's own esbuild options (no Docker). Not a
 * `PipelineFunction`: that construct is for the pipeline's functions (it takes their tracing setting).
 */
function testFunction(stack: Stack, id: string, options: TestFunctionOptions) {
  return new NodejsFunction(stack, id, {
    description: options.description,
    entry: path.join(PROJECT_ROOT, options.entry),
    handler: 'handler',
    runtime: lambda.Runtime.NODEJS_24_X,
    architecture: lambda.Architecture.ARM_64,
    memorySize: options.memorySize ?? 512,
    ...(options.reservedConcurrentExecutions !== undefined && {
      reservedConcurrentExecutions: options.reservedConcurrentExecutions,
    }),
    timeout: Duration.seconds(60),
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
    bundling: { ...LAMBDA_BUNDLING, mainFields: [...LAMBDA_BUNDLING.mainFields], externalModules: [] },
    environment: { NODE_OPTIONS: '--enable-source-maps' },
    logGroup: new logs.LogGroup(stack, `${id}Logs`, {
      retention: logs.RetentionDays.ONE_WEEK,
      removalPolicy: RemovalPolicy.DESTROY,
    }),
  });
}

/** Adds the stack under test and its `IntegTest` to `app`. */
export function buildIntegTest(app: App): IdvPipelineIntegTest {
  const stack = new Stack(app, INTEG_STACK_NAME, {
    description: 'idv-pipeline integration test: the pipeline against the simulator (deleted after the run)',
  });

  // The simulator: its credentials generated at deploy time, never in the template.
  const simulatorCredentials = new secretsmanager.Secret(stack, 'SimulatorCredentials', {
    description: 'Client credentials the simulator of the integration test accepts',
    generateSecretString: {
      secretStringTemplate: JSON.stringify({ clientId: 'idv-integ' }),
      generateStringKey: 'clientSecret',
      excludePunctuation: true,
      passwordLength: 40,
    },
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const simulator = testFunction(stack, 'Simulator', {
    entry: 'simulator/lambda.ts',
    description: 'The verification service simulator (staging, mock-test) for the integration test',
    memorySize: 1024,
    // One instance: the simulator keeps its transactions and results in memory.
    reservedConcurrentExecutions: 1,
  });
  simulator.addEnvironment(SIMULATOR_CREDENTIALS_SECRET, simulatorCredentials.secretArn);
  simulatorCredentials.grantRead(simulator);
  // No IAM auth: the pipeline's functions call the service with its own OAuth, as they call the real one.
  const simulatorUrl = simulator.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });

  // The pipeline, everything deleted with the stack; the key and the bucket are the test's own so that
  // the bucket can empty itself on delete.
  const encryptionKey = new kms.Key(stack, 'Key', {
    description: 'idv-pipeline integration test key',
    enableKeyRotation: true,
    pendingWindow: Duration.days(7),
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const dataBucket = new s3.Bucket(stack, 'DataBucket', {
    encryption: s3.BucketEncryption.KMS,
    encryptionKey,
    bucketKeyEnabled: true,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    enforceSSL: true,
    versioned: true,
    removalPolicy: RemovalPolicy.DESTROY,
    autoDeleteObjects: true,
  });
  const pipeline = new IdvPipeline(stack, 'Pipeline', {
    environmentName: 'staging',
    serviceBaseUrl: simulatorUrl.url,
    retention: Duration.days(1),
    encryptionKey,
    dataBucket,
    analytics: false,
    removalPolicy: RemovalPolicy.DESTROY,
    logRetention: logs.RetentionDays.ONE_WEEK,
    // Small reserved concurrency: a test account's unreserved pool must keep its minimum of 10.
    serviceRateLimit: 2,
    fetchReservedConcurrency: false,
  });

  // A subscriber, as a downstream team would add one: every event of the pipeline into a queue.
  const events = new sqs.Queue(stack, 'EventsQueue', {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.hours(1),
    removalPolicy: RemovalPolicy.DESTROY,
  });
  pipeline.addResultRule(stack, 'EventsToQueue', new events_targets.SqsQueue(events));

  const driver = testFunction(stack, 'Driver', {
    entry: 'test/integ/handlers/driver.ts',
    description: 'Integration test: sets the credentials and creates mock-test transactions',
  });
  driver.addEnvironment(DRIVER_ENV.simulatorUrl, simulatorUrl.url);
  driver.addEnvironment(DRIVER_ENV.simulatorCredentials, simulatorCredentials.secretArn);
  driver.addEnvironment(DRIVER_ENV.pipelineCredentials, pipeline.secrets.credentials.secretArn);
  simulatorCredentials.grantRead(driver);
  pipeline.secrets.credentials.grantWrite(driver);

  const eraser = testFunction(stack, 'Eraser', {
    entry: 'test/integ/handlers/erase.ts',
    description: 'Integration test: erases the results of a customer reference (the erasure policy)',
  });
  eraser.addEnvironment(ERASER_ENV.table, pipeline.resultsTable.tableName);
  eraser.addEnvironment(ERASER_ENV.bucket, pipeline.dataBucket.bucketName);
  eraser.addEnvironment(ERASER_ENV.markersTable, pipeline.poller.markersTable.tableName);
  eraser.addEnvironment(ERASER_ENV.bus, pipeline.eventBus.eventBusName);
  eraser.addEnvironment(ERASER_ENV.copyBounds, pipeline.erasure.copyBoundsJson);
  pipeline.grantErase(eraser);

  const integ = new IntegTest(app, 'IdvPipelineIntegTest', { testCases: [stack] });
  addAssertions(integ, { pipeline, driver, eraser, events, encryptionKey });
  return { stack, pipeline, simulator, simulatorUrl, driver, eraser, integ };
}

/** The steps of the test, chained: each starts when the one before passed. */
function addAssertions(
  integ: IntegTest,
  parts: {
    pipeline: IdvPipeline;
    driver: lambda.Function;
    eraser: lambda.Function;
    events: sqs.Queue;
    encryptionKey: kms.IKey;
  },
): void {
  const { pipeline, driver, eraser, events, encryptionKey } = parts;
  // The table is encrypted with the pipeline's key; awsApiCall grants only the API action itself.
  const decrypt = { Effect: 'Allow', Action: ['kms:Decrypt'], Resource: [encryptionKey.keyArn] };
  const readsTable = (call: IApiCall): IApiCall => {
    call.provider.addToRolePolicy(decrypt);
    const waiter = call.node.tryFindChild('WaitFor');
    if (waiter instanceof WaiterStateMachine) waiter.isCompleteProvider.addToRolePolicy(decrypt);
    return call;
  };
  const [approved, disapproved] = INTEG_TRANSACTIONS;
  const tableName = pipeline.resultsTable.tableName;
  const byReference = (customerReference: string) => ({
    TableName: tableName,
    IndexName: RESULTS_TABLE.indexes.byCustomerReference.indexName,
    KeyConditionExpression: 'customerReference = :r',
    ExpressionAttributeValues: { ':r': { S: customerReference } },
  });
  const wait = { totalTimeout: STORE_TIMEOUT, interval: Duration.seconds(20) };

  const create = integ.assertions.invokeFunction({ functionName: driver.functionName }).expect(
    ExpectedResult.objectLike({
      Payload: IntegMatch.serializedJson(
        IntegMatch.objectLike({
          transactions: INTEG_TRANSACTIONS.map((t) =>
            IntegMatch.objectLike({ customerReference: t.customerReference }),
          ),
        }),
      ),
    }),
  );

  const stored = readsTable(
    integ.assertions
      .awsApiCall('DynamoDB', 'query', byReference(approved!.customerReference))
      .expect(ExpectedResult.objectLike({ Count: 1 }))
      .waitForAssertions(wait),
  );
  const resultId = stored.getAttString('Items.0.resultId.S');

  const readBack = readsTable(
    integ.assertions
      .awsApiCall('DynamoDB', 'getItem', {
        TableName: tableName,
        Key: { resultId: { S: resultId } },
        // Bounded: the item's identifiers and outcome, never its document.
        ProjectionExpression: 'resultId, customerReference, #s, #r',
        ExpressionAttributeNames: { '#s': 'status', '#r': 'result' },
      })
      .expect(
        ExpectedResult.objectLike({
          Item: {
            resultId: { S: resultId },
            customerReference: { S: approved!.customerReference },
            status: { S: 'STORED' },
            result: { S: 'APPROVED' },
          },
        }),
      ),
  );

  const announced = (reference: string, result: string) =>
    integ.assertions
      .awsApiCall('SQS', 'receiveMessage', {
        QueueUrl: events.queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 10,
        // Look without taking: the next attempt and the next step see the same messages.
        VisibilityTimeout: 0,
      })
      .expect(
        ExpectedResult.objectLike({
          Messages: IntegMatch.arrayWith([
            IntegMatch.objectLike({
              Body: IntegMatch.serializedJson(
                IntegMatch.objectLike({
                  'detail-type': DETAIL_TYPES.resultStored,
                  detail: IntegMatch.objectLike({ customerReference: reference, result }),
                }),
              ),
            }),
          ]),
        }),
      )
      .waitForAssertions(wait);

  const erase = integ.assertions
    .invokeFunction({
      functionName: eraser.functionName,
      payload: JSON.stringify({ customerReference: approved!.customerReference }),
    })
    .expect(
      ExpectedResult.objectLike({
        Payload: IntegMatch.serializedJson(
          IntegMatch.objectLike({ erased: [IntegMatch.objectLike({ state: 'ERASED' })] }),
        ),
      }),
    );

  const gone = readsTable(
    integ.assertions
      .awsApiCall('DynamoDB', 'query', byReference(approved!.customerReference))
      .expect(ExpectedResult.objectLike({ Count: 0 })),
  );
  const record = readsTable(
    integ.assertions
      .awsApiCall('DynamoDB', 'getItem', {
        TableName: tableName,
        Key: { resultId: { S: `${resultId}${ERASURE_KEY_SUFFIX}` } },
        ProjectionExpression: '#s',
        ExpressionAttributeNames: { '#s': 'state' },
      })
      .expect(ExpectedResult.objectLike({ Item: { state: { S: 'ERASED' } } })),
  );

  create
    .next(stored)
    .next(readBack)
    .next(announced(approved!.customerReference, 'APPROVED'))
    .next(announced(disapproved!.customerReference, 'DISAPPROVED'))
    .next(erase)
    .next(gone)
    .next(record);
}
