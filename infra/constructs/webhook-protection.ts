import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import type { WebhookProtection as WebhookProtectionSettings } from '../config';
import type { ResourceNames } from '../resource-names';

/** Properties of {@link WebhookProtection}. */
export interface WebhookProtectionProps {
  /** The webhook stage the web ACL guards. */
  readonly stage: apigateway.Stage;
  /** The stage's name as written in the API (`stage.stageName` is a token), the first path segment. */
  readonly stageName: string;
  /** The pipeline's names: the web ACL's (with a prefix only) and its metric names. */
  readonly names: ResourceNames;
  /** The environment's settings (the per-IP limit). */
  readonly settings: WebhookProtectionSettings;
}

/** Window of the rate-based rule: the limit is per source IP and per this many seconds. */
export const WAF_RATE_WINDOW_SECONDS = 300;

/**
 * A regional WAF web ACL on the webhook stage, so that callers without the secret cannot use up the
 * stage throttle that real webhooks share: WAF decides before API Gateway counts a request.
 *
 * 1. `per-ip-rate`: a source IP past `wafRateLimitPer5Min` requests in 5 minutes is blocked (403) until
 *    its rate falls again. A stranger needs many addresses to reach the stage throttle.
 * 2. `webhook-routes-only`: anything but `POST {stage}/webhooks/{token}/result|upload` is blocked.
 *
 * A real webhook blocked by mistake is not lost: the webhook is only a hint, and the poll finds every
 * finished result within a minute (docs/deploy.md, "Webhook protection"). Sampled requests and WAF logs
 * are off: both record the request path, which holds the webhook secret; CloudWatch metrics per rule stay.
 */
export class WebhookProtection extends Construct {
  /** The web ACL. */
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: WebhookProtectionProps) {
    super(scope, id);
    const visibility = (metricName: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      metricName: props.names.required(metricName),
      sampledRequestsEnabled: false,
    });
    const stage = props.stageName;

    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      name: props.names.optional('webhooks'),
      description: 'Per-IP rate limit and route allow-list in front of the webhook stage.',
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('webhooks'),
      rules: [
        {
          name: 'per-ip-rate',
          priority: 0,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: props.settings.wafRateLimitPer5Min,
              evaluationWindowSec: WAF_RATE_WINDOW_SECONDS,
            },
          },
          visibilityConfig: visibility('per-ip-rate'),
        },
        {
          name: 'webhook-routes-only',
          priority: 1,
          action: { block: {} },
          statement: {
            notStatement: {
              statement: {
                andStatement: {
                  statements: [
                    {
                      byteMatchStatement: {
                        fieldToMatch: { method: {} },
                        positionalConstraint: 'EXACTLY',
                        searchString: 'POST',
                        textTransformations: [{ priority: 0, type: 'NONE' }],
                      },
                    },
                    {
                      regexMatchStatement: {
                        fieldToMatch: { uriPath: {} },
                        // The stage prefix is optional: the path WAF sees starts with it on the
                        // execute-api host, not behind a custom domain mapping.
                        regexString: `^(/${stage})?/webhooks/[^/]+/(result|upload)/?$`,
                        textTransformations: [{ priority: 0, type: 'NONE' }],
                      },
                    },
                  ],
                },
              },
            },
          },
          visibilityConfig: visibility('webhook-routes-only'),
        },
      ],
    });

    new wafv2.CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
