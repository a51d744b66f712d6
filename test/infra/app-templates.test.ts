import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURE_DIR, normalisedAppTemplates, PINNED_ENVIRONMENTS } from './app-templates';

describe("the app's templates", () => {
  it.each(PINNED_ENVIRONMENTS)(
    'keeps every resource, property and logical id of %s as pinned (fixtures/app-template-<env>.json)',
    (environment) => {
      // Prepare
      const pinned = JSON.parse(
        readFileSync(path.join(FIXTURE_DIR, `app-template-${environment}.json`), 'utf8'),
      ) as unknown;

      // Act
      const current = normalisedAppTemplates(environment);

      // Assess
      expect(current).toEqual(pinned);
    },
  );
});
