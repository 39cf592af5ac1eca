import { describe, expect, it } from '@jest/globals';
import { RouteMethods } from './route-methods.store.js';

describe('RouteMethods', () => {
  const routes = new RouteMethods();
  routes.add('/api/openapi/v1/scrape', 'POST');
  routes.add('/api/openapi/v1/extractTask/:jobId', ['GET', 'HEAD']);
  routes.add('/api/openapi/v1/extractTask/batch', 'POST');
  routes.add('/docs/*', 'GET');

  it('lists every method of the routes matching a path', () => {
    expect(routes.allowed('/api/openapi/v1/scrape')).toEqual(['POST']);
    expect(routes.allowed('/api/openapi/v1/extractTask/batch')).toEqual(['GET', 'HEAD', 'POST']);
    expect(routes.allowed('/api/openapi/v1/extractTask/abc')).toEqual(['GET', 'HEAD']);
    expect(routes.allowed('/docs/a/b.css')).toEqual(['GET']);
  });

  it('matches a parameter to one segment only, and nothing for unknown paths', () => {
    expect(routes.allowed('/api/openapi/v1/extractTask/a/b')).toEqual([]);
    expect(routes.allowed('/api/openapi/v1/scrapes')).toEqual([]);
  });
});
