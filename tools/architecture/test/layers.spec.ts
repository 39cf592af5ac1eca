import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { createProjectGraphAsync } from '@nx/devkit';
import { ESLint } from 'eslint';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Issue 9, "must show" 2: the project's own lint (eslint.config.js, the tags in every project.json) refuses imports
 * that break the layers. Fixture code is linted in memory as if it were a file of the named project.
 */
describe('layers the linter enforces', () => {
  let eslint: ESLint;

  beforeAll(async () => {
    // The module-boundary rule reads Nx's cached project graph (as `npm test` computes it before lint).
    process.env['NX_DAEMON'] = 'false';
    process.env['NX_NO_CLOUD'] = 'true';
    await createProjectGraphAsync({ exitOnError: false });
    eslint = new ESLint({ cwd: ROOT });
  }, 120_000);

  /** The rule ids of the errors lint reports for `code` as the file `filePath`. */
  async function errorsOf(filePath: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: resolve(ROOT, filePath) });
    return (result?.messages ?? []).filter((m) => m.severity === 2).map((m) => m.ruleId ?? m.message);
  }

  it('refuses BullMQ in the gateway (and Bull Board), and in any lib but libs/tasks', async () => {
    expect(
      await errorsOf('apps/gateway/src/x.ts', "import { Queue } from 'bullmq';\nexport const used = [Queue];\n"),
    ).toEqual(['no-restricted-imports']);
    expect(
      await errorsOf(
        'apps/gateway/src/x.ts',
        "import { createBullBoard } from '@bull-board/api';\nexport const used = [createBullBoard];\n",
      ),
    ).toEqual(['no-restricted-imports']);
    expect(
      await errorsOf('libs/webhooks/src/lib/x.ts', "import { Queue } from 'bullmq';\nexport const used = [Queue];\n"),
    ).toEqual(['no-restricted-imports']);
  });

  it('refuses libs/tasks (BullMQ underneath) anywhere but task-service', async () => {
    const code = "import { TaskQueues } from '@trawl/tasks';\nexport const used = [TaskQueues];\n";
    expect(await errorsOf('apps/gateway/src/x.ts', code)).toEqual(['no-restricted-imports']);
    expect(await errorsOf('apps/webhook-dispatcher/src/x.ts', code)).toEqual(['no-restricted-imports']);
    expect(await errorsOf('apps/task-service/src/x.ts', code)).toEqual([]);
  });

  it('lets task-service and libs/tasks use BullMQ', async () => {
    expect(
      await errorsOf('apps/task-service/src/x.ts', "import { Queue } from 'bullmq';\nexport const used = [Queue];\n"),
    ).toEqual([]);
    expect(
      await errorsOf('libs/tasks/src/lib/x.ts', "import { Queue } from 'bullmq';\nexport const used = [Queue];\n"),
    ).toEqual([]);
  });

  it('refuses one feature lib importing another', async () => {
    const cases: [string, string][] = [
      ['libs/webhooks/src/lib/x.ts', "import { TaskQueues } from '@trawl/tasks';\nexport const used = [TaskQueues];\n"],
      [
        'libs/tasks/src/lib/x.ts',
        "import { WebhookSigner } from '@trawl/webhooks';\nexport const used = [WebhookSigner];\n",
      ],
      [
        'libs/upstream/src/lib/x.ts',
        "import { ApiKeyStore } from '@trawl/keys';\nexport const used = [ApiKeyStore];\n",
      ],
    ];
    for (const [file, code] of cases) expect(await errorsOf(file, code)).toContain('@nx/enforce-module-boundaries');
  });

  it('refuses infrastructure importing a feature', async () => {
    const cases: [string, string][] = [
      [
        'libs/browser-pool/src/lib/x.ts',
        "import { ApiKeyStore } from '@trawl/keys';\nexport const used = [ApiKeyStore];\n",
      ],
      [
        'libs/messaging/src/lib/x.ts',
        "import { TaskQueues } from '@trawl/tasks';\nexport const used = [TaskQueues];\n",
      ],
      [
        'libs/safe-fetch/src/lib/x.ts',
        "import { UpstreamOrigin } from '@trawl/upstream';\nexport const used = [UpstreamOrigin];\n",
      ],
    ];
    for (const [file, code] of cases) expect(await errorsOf(file, code)).toContain('@nx/enforce-module-boundaries');
  });

  it('refuses the contract or the parsers importing anything above them, and the harness outside tests', async () => {
    expect(
      await errorsOf(
        'libs/contracts/src/lib/x.ts',
        "import { connectNats } from '@trawl/messaging';\nexport const used = [connectNats];\n",
      ),
    ).toEqual(['@nx/enforce-module-boundaries']);
    expect(
      await errorsOf(
        'libs/parsers/src/lib/x.ts',
        "import { safeFetch } from '@trawl/safe-fetch';\nexport const used = [safeFetch];\n",
      ),
    ).toEqual(['@nx/enforce-module-boundaries']);
    expect(
      await errorsOf(
        'libs/messaging/src/lib/x.ts',
        "import { startNats } from '@trawl/testing';\nexport const used = [startNats];\n",
      ),
    ).toEqual(['@nx/enforce-module-boundaries']);
  });

  it('allows what the layers allow: a feature on infrastructure, an app on a feature, a test on the harness', async () => {
    expect(
      await errorsOf(
        'libs/webhooks/src/lib/x.ts',
        "import { connectNats } from '@trawl/messaging';\nexport const used = [connectNats];\n",
      ),
    ).toEqual([]);
    expect(
      await errorsOf(
        'apps/gateway/src/x.ts',
        "import { ApiKeyStore } from '@trawl/keys';\nexport const used = [ApiKeyStore];\n",
      ),
    ).toEqual([]);
    expect(
      await errorsOf(
        'libs/messaging/src/lib/x.spec.ts',
        "import { startNats } from '@trawl/testing';\nexport const used = [startNats];\n",
      ),
    ).toEqual([]);
  });
});
