import { Stack, Validations } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct, type IConstruct } from 'constructs';

/**
 * The finding cdk-nag's `AwsSolutions-IAM5` reports for a wildcard `resource` in a policy of `scope`'s
 * stack: `Resource::<LogicalId.Arn>/results/*` for a bucket of the same stack,
 * `Resource::arn:<AWS::Partition>:s3:::name/results/*` for one imported by name. The acknowledgement
 * then names exactly that grant, whichever bucket a user brings. (cdk-nag's own flattening, redone here:
 * the construct must not need cdk-nag at run time.)
 */
export function wildcardResourceFinding(scope: IConstruct, resource: string): string {
  return `Resource::${flatten(Stack.of(scope).resolve(resource))}`;
}

function flatten(node: unknown): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
  if (typeof node === 'object' && node !== null) {
    const value = node as Record<string, unknown>;
    if (Array.isArray(value['Fn::Join'])) {
      const [delimiter, items] = value['Fn::Join'] as [string, unknown[]];
      return items.map(flatten).join(delimiter);
    }
    if (value['Fn::Sub'] !== undefined) return flatten(value['Fn::Sub']);
    if (Array.isArray(value['Fn::GetAtt'])) {
      const [resource, attribute] = value['Fn::GetAtt'] as [unknown, unknown];
      return `<${flatten(resource)}.${flatten(attribute)}>`;
    }
    if (value['Fn::ImportValue'] !== undefined) return flatten(value['Fn::ImportValue']);
    if (value['Ref'] !== undefined) return `<${flatten(value['Ref'])}>`;
  }
  return JSON.stringify(node);
}

/**
 * Adds `statements` to `grantee`'s policy, with the cdk-nag acknowledgement of each wildcard resource
 * they hold (`reason` says why the wildcard is needed): a grant of the pipeline is nag-clean on whatever
 * principal receives it. The findings are computed when the app is validated, after CDK has turned
 * references across stacks (a nested stack's bucket) into what the principal's template really holds.
 */
export function grantAcknowledged(
  grantee: iam.IGrantable,
  statements: readonly iam.PolicyStatement[],
  reason: string,
): void {
  const principal = grantee.grantPrincipal;
  for (const statement of statements) principal.addToPrincipalPolicy(statement);
  if (!Construct.isConstruct(principal)) return;
  const resources = statements.flatMap((statement) => statement.resources);
  principal.node.addValidation({
    validate: () => {
      const findings = new Set(
        resources
          .map((resource) => wildcardResourceFinding(principal, resource))
          .filter((f) => f.includes('*')),
      );
      Validations.of(principal).acknowledge(
        ...[...findings].map((finding) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason })),
      );
      return [];
    },
  });
}

/**
 * Acknowledges the `AwsSolutions-IAM5` finding of each wildcard in `resources` on `scope` (a role or
 * policy that holds them), computed when the app is validated, as {@link grantAcknowledged} does: the
 * acknowledgement names exactly those grants, not every wildcard the role may get later.
 */
export function acknowledgeWildcards(scope: IConstruct, resources: readonly string[], reason: string): void {
  scope.node.addValidation({
    validate: () => {
      const findings = new Set(
        resources.map((resource) => wildcardResourceFinding(scope, resource)).filter((f) => f.includes('*')),
      );
      Validations.of(scope).acknowledge(
        ...[...findings].map((finding) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason })),
      );
      return [];
    },
  });
}
