import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromiumSeccompProfileJson } from './lib/chromium-seccomp.builder.js';
import { toYaml } from './lib/manifests-yaml.serializer.js';
import { renderManifests } from './lib/manifests.renderer.js';
import { natsAuthConfig } from './lib/network-security.builder.js';
import { findRepoRoot } from './lib/repo-root.util.js';
import { loadValues, ValuesError } from './lib/trawl-values.reader.js';
import { validateManifests } from './lib/manifests.validator.js';

const USAGE = `Trawl Kubernetes manifests (deploy/k8s/values.yaml + your overrides -> YAML).

  node dist/tools/deploy/src/main.js render [--values FILE]... [--out FILE]
  node dist/tools/deploy/src/main.js check  [--values FILE]...
  node dist/tools/deploy/src/main.js nats-auth [--values FILE]... [--out FILE]
  node dist/tools/deploy/src/main.js seccomp [--out FILE]

render     prints (or writes) every object, ready for kubectl apply -f.
check      renders and validates every object against the Kubernetes/KEDA schemas and the cross-object rules.
nats-auth  prints (or writes) the NATS authorization block alone (deploy/nats/auth.conf): a user per service,
           allowed the subjects of its rows of the subject table (libs/contracts).
seccomp    prints (or writes) the seccomp profile extractor-scrape's pod runs under with Chromium's sandbox
           (deploy/k8s/seccomp/trawl-chromium.json): install it on every node (docs/deploy.md).`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values: flags } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      values: { type: 'string', short: 'f', multiple: true },
      out: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0];
  if (flags.help || !['render', 'check', 'nats-auth', 'seccomp'].includes(command ?? '')) {
    console.log(USAGE);
    return flags.help ? 0 : 64;
  }
  if (command === 'seccomp') {
    const profile = chromiumSeccompProfileJson();
    if (flags.out) writeFileSync(flags.out, profile);
    else process.stdout.write(profile);
    return 0;
  }
  const root = findRepoRoot(fileURLToPath(import.meta.url));
  const values = loadValues(root, flags.values ?? []);
  if (command === 'nats-auth') {
    const conf = natsAuthConfig(values);
    if (flags.out) writeFileSync(flags.out, conf);
    else process.stdout.write(conf);
    return 0;
  }
  const objects = renderManifests(values);
  if (command === 'render') {
    const yaml = toYaml(
      objects,
      `Rendered by tools/deploy for release "${values.release}", image tag ${values.image.tag}.`,
    );
    if (flags.out) writeFileSync(flags.out, yaml);
    else process.stdout.write(yaml);
    return 0;
  }
  const problems = await validateManifests(objects, {
    externalSecrets: values.secrets.create ? [] : [values.secrets.name],
  });
  for (const p of problems) console.error(`invalid: ${p}`);
  if (values.redis.topology === 'standalone')
    console.error('note: redis.topology standalone is for development, without failover (docs/deploy.md)');
  console.log(`${objects.length} objects, ${problems.length} problems`);
  return problems.length === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof ValuesError ? error.message : error);
    process.exit(1);
  },
);
