import { loadEnv, BaseEnv } from '@trawl/config';
import { connectNats, natsAuth } from '@trawl/messaging';
import { WebhookDeadLetters } from '@trawl/webhooks';

const USAGE = `Usage: node dist/apps/webhook-dispatcher/src/dead-letters.cli.js <command>
  list                 print every dead-lettered outcome (one JSON line each)
  replay <eventId>     deliver that outcome again (same webhook-id, a fresh retry schedule)
  replay --all         deliver every dead-lettered outcome again
Reads NATS_URL.`;

/** Lists or replays the outcomes the dispatcher gave up on (stream WEBHOOK_DEAD_LETTERS). */
async function main(args: string[]): Promise<number> {
  const [command, target] = args;
  if (command !== 'list' && command !== 'replay') {
    console.error(USAGE);
    return 2;
  }
  if (command === 'replay' && !target) {
    console.error(USAGE);
    return 2;
  }
  const env = loadEnv(BaseEnv);
  const nc = await connectNats(env.NATS_URL, 'webhook-dead-letters-cli', natsAuth(env));
  try {
    const letters = new WebhookDeadLetters(nc);
    if (command === 'list') {
      for (const { seq, letter } of await letters.list()) {
        console.log(
          JSON.stringify({
            seq,
            eventId: letter.outcome.eventId,
            webhook: letter.outcome.webhook,
            event: letter.outcome.event,
            reason: letter.reason,
            attempts: letter.attempts,
            lastStatus: letter.lastStatus,
            deadLetteredAt: new Date(letter.deadLetteredAt).toISOString(),
          }),
        );
      }
      return 0;
    }
    const n = await letters.replay(target === '--all' ? undefined : target);
    console.log(`replayed ${n} outcome(s)`);
    return n > 0 || target === '--all' ? 0 : 1;
  } finally {
    await nc.drain();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
