import { stringify } from 'yaml';
import type { KubeObject } from './manifests.renderer.js';

/** One multi-document YAML stream, `kubectl apply -f`-ready. */
export function toYaml(objects: KubeObject[], header?: string): string {
  const docs = objects.map((o) => stringify(o, { lineWidth: 0, sortMapEntries: false }).trimEnd());
  const head = header
    ? `${header
        .split('\n')
        .map((l) => `# ${l}`.trimEnd())
        .join('\n')}\n`
    : '';
  return `${head}${docs.map((d) => `---\n${d}`).join('\n')}\n`;
}
