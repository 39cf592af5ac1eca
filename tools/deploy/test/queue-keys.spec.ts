import { describe, expect, it } from '@jest/globals';
import { QUEUES, queuePrefix } from '@trawl/contracts';
import { prioritizedKey, prioritizedPattern, waitListKey, waitListsPattern } from '../src/lib/queue-keys.util.js';

const matches = (pattern: string, key: string) =>
  new RegExp(`^${pattern.replace(/[{}]/g, '\\$&').replace(/\*/g, '.*')}$`).test(key);

/**
 * The keys KEDA watches are under the prefix task-service writes (`queuePrefix` of @trawl/contracts), and the KEDA
 * user's ACL patterns cover them: a wrong one would leave a service scaled to zero with work waiting. That BullMQ
 * puts a job there is shown in auth-config.spec.ts (a real queue, a prioritized job, KEDA's own script).
 */
describe("the manifests' queue keys", () => {
  it.each(Object.values(QUEUES))('%s: both waiting keys under its prefix, both covered by the ACL', (queue) => {
    expect(waitListKey(queue)).toBe(`${queuePrefix(queue)}:${queue}:wait`);
    expect(prioritizedKey(queue)).toBe(`${queuePrefix(queue)}:${queue}:prioritized`);
    expect(matches(waitListsPattern(), waitListKey(queue))).toBe(true);
    expect(matches(prioritizedPattern(), prioritizedKey(queue))).toBe(true);
    expect(matches(waitListsPattern(), prioritizedKey(queue))).toBe(false);
  });
});
