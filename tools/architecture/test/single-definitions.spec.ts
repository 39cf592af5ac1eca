import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Every TypeScript source that ships (no tests), as repository paths. */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'testing' && e.name !== 'test') walk(path);
      } else if (e.name.endsWith('.ts') && !/\.(e2e-)?spec\.ts$/.test(e.name)) out.push(relative(ROOT, path));
    }
  };
  for (const top of ['apps', 'libs', 'tools']) {
    for (const project of readdirSync(join(ROOT, top), { withFileTypes: true })) {
      const src = join(ROOT, top, project.name, 'src');
      if (project.isDirectory() && readdirSync(join(ROOT, top, project.name)).includes('src')) walk(src);
    }
  }
  return out.sort();
}

const FILES = sources().map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));

/** The files whose text matches `pattern`. */
const filesMatching = (pattern: RegExp): string[] => FILES.filter((f) => pattern.test(f.text)).map((f) => f.path);

/** Issue 9, "must show" 3: each rule is defined once, in libs/contracts or libs/config. */
describe('each rule defined once', () => {
  it('reads the sources it checks', () => {
    expect(FILES.length).toBeGreaterThan(100);
    expect(filesMatching(/export class BaseEnv/)).toEqual(['libs/config/src/lib/base.env.ts']);
  });

  it('declares the shared env fields METRICS_PORT and SSRF_ALLOW_HOSTS once, for every NATS service', () => {
    expect(filesMatching(/^\s+METRICS_PORT(: number)? =/m)).toEqual(['libs/config/src/lib/base.env.ts']);
    expect(filesMatching(/^\s+SSRF_ALLOW_HOSTS(: string\[\])? =/m)).toEqual(['libs/config/src/lib/base.env.ts']);
  });

  it('hands out variables parsed: no caller splits a list, compares a flag to text or re-defaults a variable', () => {
    const outsideConfig = (pattern: RegExp) => filesMatching(pattern).filter((p) => !p.startsWith('libs/config/'));
    // A list re-split, a `'true'` compared, a default re-applied (INSTANCE_ID always has one), the old helper.
    expect(outsideConfig(/\benv\.[A-Z][A-Z0-9_]*\.split\(/)).toEqual([]);
    expect(outsideConfig(/\benv\.[A-Z][A-Z0-9_]*\s*[!=]==?\s*'(true|false)'/)).toEqual([]);
    expect(outsideConfig(/\benv\.INSTANCE_ID\s*(\|\||\?\?)/)).toEqual([]);
    expect(outsideConfig(/\bcsv\(\s*(this\.)?env\./)).toEqual([]);
    // Typed fields in the env classes: lists, flags and durations are arrays, booleans and numbers.
    expect(filesMatching(/^\s+[A-Z][A-Z0-9_]*: '(true|false)' \| '(true|false)'/m)).toEqual([]);
  });

  it('maps each /extract type to its subject once: no switch over the types elsewhere', () => {
    // A switch over the types that sends to subjects (tools/parse switches over page kinds, with no subject).
    const switching = filesMatching(/case '(retail|mp-maps|mp-search|scrape)':/);
    expect(switching.filter((path) => /SUBJECTS\./.test(FILES.find((f) => f.path === path)?.text ?? ''))).toEqual([]);
    // Files naming every URL-type subject: the contract's map only. Request and reply types, the serving service and
    // the deploy's NATS permissions are all read off the one subject table.
    expect(
      filesMatching(
        /SUBJECTS\.extractRetail\b[\s\S]*SUBJECTS\.extractPlace\b|SUBJECTS\.extractPlace\b[\s\S]*SUBJECTS\.extractRetail\b/,
      ),
    ).toEqual(['libs/contracts/src/lib/extract-routing.policy.ts']);
  });

  it('writes each subject once: its row of the subject table, and nowhere else as text', () => {
    // A subject string ('<domain>.<verb>.v<N>') in shipped code outside the table is a second definition.
    const literal = /'(extract|scrape|render|task)\.[a-z-]+\.v\d+'/;
    expect(filesMatching(literal)).toEqual(['libs/contracts/src/lib/subjects.constants.ts']);
    // Which service serves a subject and who may call it: only the table says (no map of subject to service).
    expect(filesMatching(/servedBy:\s*'/)).toEqual(['libs/contracts/src/lib/subjects.constants.ts']);
    expect(filesMatching(/SERVICE_OF_SUBJECT/)).toEqual([]);
  });

  it('boots every service through one runtime: signals, ops server and Nest log levels exist once', () => {
    const services = FILES.filter((f) => /^apps\/(?!system-e2e)[^/]+\/src\/app\.bootstrap\.ts$/.test(f.path));
    expect(services.map((f) => f.path.split('/')[1])).toEqual([
      'extractor-maps',
      'extractor-retail',
      'extractor-scrape',
      'extractor-search',
      'gateway',
      'task-service',
      'webhook-dispatcher',
    ]);
    for (const f of services) expect(f.text).toMatch(/\brun(Nats)?Service\(/);
    // Every NATS service (all but the gateway's HTTP and the webhook dispatcher) on the NATS runtime.
    expect(services.filter((f) => /\brunNatsService\(/.test(f.text)).map((f) => f.path.split('/')[1])).toEqual([
      'extractor-maps',
      'extractor-retail',
      'extractor-scrape',
      'extractor-search',
      'task-service',
    ]);
    const apps = (paths: string[]) => paths.filter((path) => path.startsWith('apps/') || path.startsWith('libs/'));
    expect(apps(filesMatching(/process\.(once|on)\('SIGTERM'/))).toEqual([
      'libs/service-runtime/src/lib/service.runtime.ts',
    ]);
    expect(apps(filesMatching(/process\.exit\(0\)/))).toEqual(['libs/service-runtime/src/lib/service.runtime.ts']);
    expect(filesMatching(/await startOpsServer\(/)).toEqual(['libs/service-runtime/src/lib/service.runtime.ts']);
    expect(filesMatching(/NEST_LOG_LEVELS\s*[:=]/)).toEqual([
      'libs/service-runtime/src/lib/nest-log-levels.constants.ts',
    ]);
    expect(filesMatching(/NestFactory\.createMicroservice/)).toEqual([
      'libs/service-runtime/src/lib/nats-service.runtime.ts',
    ]);
  });

  it('defines the job-id pattern and the engine names once', () => {
    expect(filesMatching(/JOB_ID_PATTERN\s*=/)).toEqual(['libs/contracts/src/lib/job-id.constants.ts']);
    expect(filesMatching(/\[\s*'(http|browser|auto)',\s*'(http|browser|auto)',\s*'(http|browser|auto)'\s*\]/)).toEqual([
      'libs/contracts/src/lib/upstream-engine.constants.ts',
    ]);
  });

  it('defines canonical JSON once, where the gateway and task-service both may import it', () => {
    // A key sort inside a recursive serializer: the rule behind the cache key and the idempotency fingerprint.
    expect(filesMatching(/\.sort\(\(\[a\], \[b\]\)/)).toEqual(['libs/contracts/src/lib/canonical-json.serializer.ts']);
    expect(filesMatching(/function canonicalJson\b/)).toEqual(['libs/contracts/src/lib/canonical-json.serializer.ts']);
  });
});
