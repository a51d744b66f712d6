import { Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

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
