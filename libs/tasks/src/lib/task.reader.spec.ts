import { describe, expect, it } from '@jest/globals';
import { ownsTask } from './task.reader.js';

describe('ownsTask (a task is seen only by the key that submitted it)', () => {
  it('lets the submitting key see its task, and no other key', () => {
    expect(ownsTask({ apiKeyId: 'key_a' }, 'key_a')).toBe(true);
    expect(ownsTask({ apiKeyId: 'key_a' }, 'key_b')).toBe(false);
    expect(ownsTask({ apiKeyId: 'key_a' }, undefined)).toBe(false);
  });

  it('shows a job without a key (a batch query, a direct submission) only to a caller without one', () => {
    expect(ownsTask({ kind: 'maps-query' }, 'key_a')).toBe(false);
    expect(ownsTask({ kind: 'url' }, undefined)).toBe(true);
    expect(ownsTask(null, 'key_a')).toBe(false);
    expect(ownsTask({ apiKeyId: 42 }, undefined)).toBe(true);
    expect(ownsTask({ apiKeyId: 42 }, '42')).toBe(false);
  });
});
