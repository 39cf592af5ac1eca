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
    ).toContain('no-restricted-imports');
    expect(
      await errorsOf(
        'apps/gateway/src/x.ts',
        "import { createBullBoard } from '@bull-board/api';\nexport const used = [createBullBoard];\n",
      ),
    ).toContain('no-restricted-imports');
    expect(
      await errorsOf('libs/webhooks/src/lib/x.ts', "import { Queue } from 'bullmq';\nexport const used = [Queue];\n"),
    ).toContain('no-restricted-imports');
  });

  it('refuses libs/tasks (BullMQ underneath) anywhere but task-service', async () => {
    const code = "import { TaskQueues } from '@trawl/tasks';\nexport const used = [TaskQueues];\n";
    expect(await errorsOf('apps/gateway/src/x.ts', code)).toContain('no-restricted-imports');
    expect(await errorsOf('apps/webhook-dispatcher/src/x.ts', code)).toContain('no-restricted-imports');
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

  /** Issue 20, "must show" 2: each hole the review found is refused. */
  const uses = (imports: string, names: string) => `${imports}\nexport const used = [${names}];\n`;

  it('refuses BullMQ in the gateway however it is loaded: import(), require(), createRequire, a computed name', async () => {
    const gateway = 'apps/gateway/src/x.ts';
    expect(await errorsOf(gateway, "export const load = () => import('bullmq');\n")).toContain(
      '@nx/enforce-module-boundaries',
    );
    expect(
      await errorsOf(
        gateway,
        "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\nexport const q = require('bullmq');\n",
      ),
    ).toEqual(expect.arrayContaining(['no-restricted-syntax', '@nx/enforce-module-boundaries']));
    expect(
      await errorsOf(
        gateway,
        "import * as m from 'node:module';\nexport const q = m.createRequire(import.meta.url)('bullmq');\n",
      ),
    ).toContain('no-restricted-syntax');
    expect(
      await errorsOf(
        gateway,
        "export const q = process.getBuiltinModule('module').createRequire(import.meta.url)('bullmq');\n",
      ),
    ).toContain('no-restricted-syntax');
    expect(
      await errorsOf(gateway, "const name = ['bull', 'mq'].join('');\nexport const load = () => import(name);\n"),
    ).toEqual(['no-restricted-syntax']);
    // The same dynamic import is task-service's to make.
    expect(await errorsOf('apps/task-service/src/x.ts', "export const load = () => import('bullmq');\n")).toEqual([]);
  });

  it('lets an app import only the libs of its kind', async () => {
    const cases: [string, string][] = [
      ['apps/gateway/src/x.ts', uses("import { UpstreamOrigin } from '@trawl/upstream';", 'UpstreamOrigin')],
      ['apps/gateway/src/x.ts', uses("import { BrowserPool } from '@trawl/browser-pool';", 'BrowserPool')],
      ['apps/extractor-search/src/x.ts', uses("import { ApiKeyStore } from '@trawl/keys';", 'ApiKeyStore')],
      ['apps/extractor-maps/src/x.ts', uses("import { createRedisClient } from '@trawl/redis';", 'createRedisClient')],
      [
        'apps/extractor-scrape/src/x.ts',
        uses("import { parseLocaleNumber } from '@trawl/parsers';", 'parseLocaleNumber'),
      ],
      ['apps/webhook-dispatcher/src/x.ts', uses("import { UpstreamOrigin } from '@trawl/upstream';", 'UpstreamOrigin')],
      ['apps/task-service/src/x.ts', uses("import { ApiKeyStore } from '@trawl/keys';", 'ApiKeyStore')],
    ];
    for (const [file, code] of cases)
      expect([file, await errorsOf(file, code)]).toEqual([file, ['@nx/enforce-module-boundaries']]);
    const allowed: [string, string][] = [
      ['apps/gateway/src/x.ts', uses("import { ApiKeyStore } from '@trawl/keys';", 'ApiKeyStore')],
      ['apps/extractor-retail/src/x.ts', uses("import { UpstreamOrigin } from '@trawl/upstream';", 'UpstreamOrigin')],
      ['apps/extractor-scrape/src/x.ts', uses("import { BrowserPool } from '@trawl/browser-pool';", 'BrowserPool')],
      [
        'apps/webhook-dispatcher/src/x.ts',
        uses("import { MessagingClient } from '@trawl/messaging';", 'MessagingClient'),
      ],
    ];
    for (const [file, code] of allowed) expect([file, await errorsOf(file, code)]).toEqual([file, []]);
  });

  it('refuses packages of another kind of service: Playwright outside the browser fleet, Redis in an extractor', async () => {
    expect(
      await errorsOf('apps/gateway/src/x.ts', uses("import { chromium } from 'playwright-core';", 'chromium')),
    ).toEqual(['@nx/enforce-module-boundaries']);
    expect(await errorsOf('apps/extractor-search/src/x.ts', "export const load = () => import('ioredis');\n")).toEqual([
      '@nx/enforce-module-boundaries',
    ]);
    expect(
      await errorsOf('apps/extractor-scrape/src/x.ts', uses("import { chromium } from 'playwright-core';", 'chromium')),
    ).toEqual([]);
  });

  it('keeps the contracts and the client free of runtime infrastructure', async () => {
    const contracts = 'libs/contracts/src/lib/x.ts';
    expect(await errorsOf(contracts, uses("import { Redis } from 'ioredis';", 'Redis'))).toEqual([
      '@nx/enforce-module-boundaries',
    ]);
    expect(await errorsOf(contracts, uses("import { chromium } from 'playwright-core';", 'chromium'))).toEqual([
      '@nx/enforce-module-boundaries',
    ]);
    expect(await errorsOf(contracts, "export const load = () => import('@nats-io/nats-core');\n")).toEqual([
      '@nx/enforce-module-boundaries',
    ]);
    expect(
      await errorsOf('libs/client/src/lib/x.ts', uses("import { Injectable } from '@nestjs/common';", 'Injectable')),
    ).toEqual(['@nx/enforce-module-boundaries']);
    expect(await errorsOf('libs/client/src/lib/x.ts', uses("import { Redis } from 'ioredis';", 'Redis'))).toEqual([
      '@nx/enforce-module-boundaries',
    ]);
  });

  it('keeps the parsers free of I/O: no network client, no socket, no file, no fetch', async () => {
    const parser = 'libs/parsers/src/lib/x.ts';
    expect(await errorsOf(parser, uses("import { request } from 'undici';", 'request'))).toEqual([
      '@nx/enforce-module-boundaries',
    ]);
    expect(await errorsOf(parser, uses("import { get } from 'node:https';", 'get'))).toEqual(['no-restricted-imports']);
    expect(await errorsOf(parser, uses("import { connect } from 'net';", 'connect'))).toEqual([
      'no-restricted-imports',
    ]);
    expect(await errorsOf(parser, uses("import { readFileSync } from 'node:fs';", 'readFileSync'))).toEqual([
      'no-restricted-imports',
    ]);
    expect(await errorsOf(parser, "export const page = () => fetch('https://example.com/');\n")).toEqual([
      'no-restricted-globals',
    ]);
    // What a parser does use stays allowed.
    expect(
      await errorsOf(
        parser,
        uses("import { load } from 'cheerio';\nimport { createHash } from 'node:crypto';", 'load, createHash'),
      ),
    ).toEqual([]);
  });

  it('refuses infrastructure importing infrastructure sideways, except as its table allows', async () => {
    const refused: [string, string][] = [
      ['libs/messaging/src/lib/x.ts', uses("import { createRedisClient } from '@trawl/redis';", 'createRedisClient')],
      ['libs/redis/src/lib/x.ts', uses("import { connectNats } from '@trawl/messaging';", 'connectNats')],
      ['libs/safe-fetch/src/lib/x.ts', uses("import { BrowserPool } from '@trawl/browser-pool';", 'BrowserPool')],
      ['libs/telemetry/src/lib/x.ts', uses("import { loadEnv } from '@trawl/config';", 'loadEnv')],
      ['libs/config/src/lib/x.ts', uses("import { startSpan } from '@trawl/telemetry';", 'startSpan')],
    ];
    for (const [file, code] of refused)
      expect([file, await errorsOf(file, code)]).toEqual([file, ['@nx/enforce-module-boundaries']]);
    const allowed: [string, string][] = [
      ['libs/service-runtime/src/lib/x.ts', uses("import { connectNats } from '@trawl/messaging';", 'connectNats')],
      ['libs/browser-pool/src/lib/x.ts', uses("import { safeFetch } from '@trawl/safe-fetch';", 'safeFetch')],
      ['libs/messaging/src/lib/x.ts', uses("import { startSpan } from '@trawl/telemetry';", 'startSpan')],
    ];
    for (const [file, code] of allowed) expect([file, await errorsOf(file, code)]).toEqual([file, []]);
  });
});
