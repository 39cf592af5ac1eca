import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/contracts';
import { BROWSER_PASSABLE_WALLS, UpstreamWallError, WALL_NAMES, wallOf } from './index.js';

describe('UpstreamWallError', () => {
  it('is a retryable UPSTREAM_BLOCKED TrawlError that carries its wall and keeps it off the wire', () => {
    const error = new UpstreamWallError('enable-javascript', 'Google answered with its enable-JavaScript wall');
    expect(error).toBeInstanceOf(TrawlError);
    expect(error).toMatchObject({ code: 'UPSTREAM_BLOCKED', retryable: true, wall: 'enable-javascript' });
    expect(error.toWire()).toEqual({ code: 'UPSTREAM_BLOCKED', message: error.message, retryable: true });
    expect(wallOf(error)).toBe('enable-javascript');
    expect(wallOf(new TrawlError('UPSTREAM_BLOCKED', 'x'))).toBeUndefined();
    expect(wallOf('nope')).toBeUndefined();
  });

  it('names every wall, and says which ones a browser gets past', () => {
    expect(WALL_NAMES).toEqual({
      'enable-javascript': 'enable-JavaScript wall',
      'unusual-traffic': 'unusual-traffic page',
      consent: 'consent interstitial',
      'javascript-challenge': 'JavaScript challenge',
      throttling: 'throttling page',
    });
    expect([...BROWSER_PASSABLE_WALLS].sort()).toEqual(['consent', 'enable-javascript', 'javascript-challenge']);
  });
});
