/**
 * The methods each registered route path takes, to tell "no such path" (404) from "not with this method" (405) for a
 * request the router did not match. Fed by Fastify's `onRoute` hook; paths with `:param` match one segment, `*`
 * matches the rest.
 */
export class RouteMethods {
  private readonly routes: { pattern: RegExp; methods: Set<string> }[] = [];
  private readonly byUrl = new Map<string, Set<string>>();

  add(url: string, methods: string | readonly string[]): void {
    let set = this.byUrl.get(url);
    if (!set) {
      set = new Set();
      this.byUrl.set(url, set);
      this.routes.push({ pattern: toPattern(url), methods: set });
    }
    for (const m of typeof methods === 'string' ? [methods] : methods) set.add(m.toUpperCase());
  }

  /** The methods `path` (without query) is registered for, sorted; empty when no route matches the path. */
  allowed(path: string): string[] {
    const out = new Set<string>();
    for (const route of this.routes) if (route.pattern.test(path)) for (const m of route.methods) out.add(m);
    return [...out].sort();
  }
}

function toPattern(url: string): RegExp {
  const body = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${body}/?$`);
}
