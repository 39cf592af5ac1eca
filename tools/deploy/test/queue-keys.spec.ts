import { describe, expect, it } from '@jest/globals';
import { QUEUES } from '@trawl/contracts';
import { queuePrefix } from '@trawl/tasks';
import { queuePrefixOf, waitListKey, waitListsPattern } from '../src/lib/queue-keys.js';

/**
 * The manifests repeat libs/tasks' queue key layout (tools may not import libs/tasks): this test holds the two
 * together, so a changed hash tag or prefix fails here instead of leaving KEDA reading an empty list.
 */
describe("the manifests' queue keys are libs/tasks' ones", () => {
  it.each(Object.values(QUEUES))('%s: the same prefix, and a waiting list the ACL patterns cover', (queue) => {
    expect(queuePrefixOf(queue)).toBe(queuePrefix(queue));
    expect(waitListKey(queue)).toBe(`${queuePrefix(queue)}:${queue}:wait`);
    const pattern = new RegExp(`^${waitListsPattern().replace(/\*/g, '.*')}$`);
    expect(waitListKey(queue)).toMatch(pattern);
  });
});
