import type { CfnResource } from 'aws-cdk-lib';
import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseEnvironmentConfig } from '../../infra/config';
import { IdvPipelineValidationError } from '../../infra/idv-pipeline-settings';
import { type IamStatement, type SynthesisedStack, statementsOfRole, synthesise } from './stack-fixture';

let production: SynthesisedStack;
const keyArn = { 'Fn::GetAtt': [Match.stringLikeRegexp('^EncryptionKey'), 'Arn'] };
const logicalIdOf = (synth: SynthesisedStack, construct: { node: { defaultChild?: unknown } }): string =>
  synth.stack.resolve((construct.node.defaultChild as CfnResource).logicalId) as string;
const keyPolicy = (template: Template): (IamStatement & { Principal?: unknown; Condition?: unknown })[] =>
  Object.values(template.findResources('AWS::KMS::Key'))[0]!.Properties.KeyPolicy.Statement;

beforeAll(() => {
  production = synthesise('production');
});

describe('the project key encrypts the enqueue markers, the bus and its archive', () => {
  it('encrypts the enqueue-markers table with the stack key', () => {
    // Prepare
    const markers = logicalIdOf(production, production.stack.poller.markersTable);

    // Act
    const table = production.template.toJSON().Resources[markers].Properties;

    // Assess
    expect(table.SSESpecification).toEqual({
      SSEEnabled: true,
      SSEType: 'KMS',
      KMSMasterKeyId: { 'Fn::GetAtt': [expect.stringMatching(/^EncryptionKey/), 'Arn'] },
    });
  });

  it('lets the poll function use the key only through DynamoDB, for its marker writes', () => {
    // Prepare
    const role = production.stack.poller.pollFunction.function.role as unknown as {
      node: { defaultChild?: unknown };
    };

    // Act
    const statements = statementsOfRole(production.template, logicalIdOf(production, role));
    const dynamoKey = statements.find((s) => JSON.stringify(s).includes('dynamodb.'));

    // Assess
    expect(dynamoKey).toMatchObject({
      Resource: { 'Fn::GetAtt': [expect.stringMatching(/^EncryptionKey/), 'Arn'] },
      Condition: { StringEquals: { 'kms:ViaService': expect.anything() } },
    });
  });

  it('encrypts the event bus and its archive with the stack key', () => {
    // Act
    const template = production.template;

    // Assess
    template.hasResourceProperties('AWS::Events::EventBus', {
      Name: 'idv-pipeline-production',
      KmsKeyIdentifier: keyArn,
    });
    template.hasResourceProperties('AWS::Events::Archive', {
      ArchiveName: 'idv-pipeline-production-archive',
      KmsKeyIdentifier: keyArn,
    });
  });

  it('lets EventBridge use the key for this bus of this account only (AWS confused-deputy guidance)', () => {
    // Prepare
    const busArn = Stack.of(production.stack).resolve(
      Stack.of(production.stack).formatArn({
        service: 'events',
        resource: 'event-bus',
        resourceName: 'idv-pipeline-production',
      }),
    );

    // Act
    const forEvents = keyPolicy(production.template).filter(
      (s) => JSON.stringify(s.Principal) === JSON.stringify({ Service: 'events.amazonaws.com' }),
    );
    const dataKeyUse = forEvents.filter((s) =>
      [s.Action].flat().some((a) => a === 'kms:GenerateDataKey' || a === 'kms:Decrypt'),
    );

    // Assess
    // The bus: its own ARN as source and as encryption context, and this account.
    expect(dataKeyUse).toContainEqual(
      expect.objectContaining({
        Condition: {
          StringEquals: {
            'aws:SourceAccount': { Ref: 'AWS::AccountId' },
            'aws:SourceArn': busArn,
            'kms:EncryptionContext:aws:events:event-bus:arn': busArn,
          },
        },
      }),
    );
    // Every data-key statement for EventBridge is bound to a source or an encryption context.
    for (const statement of dataKeyUse) {
      expect(JSON.stringify(statement.Condition)).toMatch(/aws:SourceArn|kms:EncryptionContext/);
    }
  });
});

describe('the access-log bucket takes logs only from our buckets', () => {
  it('lets the S3 logging service write only with the source bucket and account as conditions', () => {
    // Prepare
    const data = production.stack.pipeline.node.findChild('DataBucket') as unknown as {
      bucket: { node: { defaultChild?: unknown } };
      accessLogBucket: { node: { defaultChild?: unknown } };
    };
    const accessLogBucket = logicalIdOf(production, data.accessLogBucket);

    // Act
    const [policy] = Object.values(
      production.template.findResources('AWS::S3::BucketPolicy', {
        Properties: { Bucket: { Ref: accessLogBucket } },
      }),
    );
    const logging = (policy!.Properties.PolicyDocument.Statement as Record<string, unknown>[]).filter((s) =>
      JSON.stringify(s['Principal']).includes('logging.s3.amazonaws.com'),
    );

    // Assess
    expect(logging).toHaveLength(2);
    for (const statement of logging) {
      expect(statement).toMatchObject({
        Effect: 'Allow',
        Action: 's3:PutObject',
        Condition: {
          ArnLike: { 'aws:SourceArn': expect.anything() },
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        },
      });
    }
    expect(logging.map((s) => s['Condition'])).toContainEqual({
      ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [logicalIdOf(production, data.bucket), 'Arn'] } },
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
    });
    // The analytics bucket lives in the nested stack: its ARN comes out as a nested-stack output.
    expect(JSON.stringify(logging.map((s) => s['Condition']))).toContain('Outputs.');
  });

  it('still delivers both buckets’ access logs to the access-log bucket', () => {
    // Prepare
    const analytics = Template.fromStack(Stack.of(production.stack.analytics.bucket) as unknown as Stack);

    // Act
    const dataBuckets = production.template.findResources('AWS::S3::Bucket', {
      Properties: { LoggingConfiguration: { LogFilePrefix: 'data-bucket/' } },
    });

    // Assess
    expect(Object.keys(dataBuckets)).toHaveLength(1);
    analytics.hasResourceProperties('AWS::S3::Bucket', {
      LoggingConfiguration: { DestinationBucketName: Match.anyValue(), LogFilePrefix: 'analytics-bucket/' },
    });
  });
});

describe('webhook protection (WAF rate limit per source IP)', () => {
  const webAcl = (template: Template) => Object.values(template.findResources('AWS::WAFv2::WebACL'));

  it('is on by default in production: a regional web ACL with a per-IP rate rule, on the API stage', () => {
    // Prepare
    const stage = logicalIdOf(production, production.stack.webhookApi.api.deploymentStage);
    const restApi = logicalIdOf(production, production.stack.webhookApi.api);

    // Act
    const [acl] = webAcl(production.template);

    // Assess
    expect(production.config.webhookProtection).toEqual({ wafRateLimitPer5Min: 600 });
    expect(acl!.Properties).toMatchObject({
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      // Sampled requests would show the request URI, whose path holds the webhook secret.
      VisibilityConfig: { SampledRequestsEnabled: false, CloudWatchMetricsEnabled: true },
    });
    expect(acl!.Properties.Rules).toContainEqual(
      expect.objectContaining({
        Action: { Block: {} },
        Statement: {
          RateBasedStatement: { AggregateKeyType: 'IP', Limit: 600, EvaluationWindowSec: 300 },
        },
        VisibilityConfig: expect.objectContaining({ SampledRequestsEnabled: false }),
      }),
    );
    production.template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('WebAcl'), 'Arn'] },
      ResourceArn: {
        'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/restapis/'), { Ref: restApi }])],
      },
    });
    expect(JSON.stringify(production.template.findResources('AWS::WAFv2::WebACLAssociation'))).toContain(
      stage,
    );
  });

  it('blocks requests outside the two webhook routes before they reach the stage', () => {
    // Act
    const rules = webAcl(production.template)[0]!.Properties.Rules as Record<string, unknown>[];
    const paths = rules.find((r) => JSON.stringify(r['Statement']).includes('RegexMatchStatement'));

    // Assess
    expect(paths).toMatchObject({ Action: { Block: {} }, Statement: { NotStatement: expect.anything() } });
    const regex = JSON.stringify(paths)
      .match(/"RegexString":"([^"]+)"/)![1]!
      .replace(/\\\\/g, '\\');
    const pattern = new RegExp(regex);
    for (const path of ['/v1/webhooks/AbC123/result', '/v1/webhooks/AbC123/upload']) {
      expect(path).toMatch(pattern);
    }
    for (const path of ['/', '/v1', '/v1/webhooks/x/other', '/v1/admin', '/v1/webhooks//result']) {
      expect(path).not.toMatch(pattern);
    }
  });

  it('is off by default outside production, and on wherever an environment asks for it', () => {
    // Act
    const staging = synthesise('staging');
    const stagingWithWaf = synthesise('staging', { webhookProtection: { wafRateLimitPer5Min: 100 } });
    const productionWithout = synthesise('production', { webhookProtection: false });

    // Assess
    expect(staging.config.webhookProtection).toBe(false);
    staging.template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    staging.template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
    stagingWithWaf.template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
    expect(JSON.stringify(webAcl(stagingWithWaf.template)[0]!.Properties.Rules)).toContain('"Limit":100');
    productionWithout.template.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });

  it('defaults per environment and refuses a limit WAF would reject, naming the setting', () => {
    // Prepare
    const base = { serviceBaseUrl: 'https://service.example', retentionDays: 30, alarmEmail: 'a@b.example' };

    // Act
    const productionDefault = parseEnvironmentConfig('production', base).webhookProtection;
    const stagingDefault = parseEnvironmentConfig('staging', base).webhookProtection;
    const parse = (value: unknown) => () =>
      parseEnvironmentConfig('staging', { ...base, webhookProtection: value });

    // Assess
    expect(productionDefault).toEqual({ wafRateLimitPer5Min: 600 });
    expect(stagingDefault).toBe(false);
    expect(parse('false')()).toMatchObject({ webhookProtection: false });
    for (const bad of [{ wafRateLimitPer5Min: 9 }, { wafRateLimitPer5Min: 'lots' }, {}, true, 'yes']) {
      expect(parse(bad)).toThrow(IdvPipelineValidationError);
      expect(parse(bad)).toThrow(
        /^IdvPipeline: webhookProtection[ .].*\(cdk\.json context\.environments\.staging\.webhookProtection/,
      );
    }
  });
});
