import type { IncomingMessage } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { eventually, startLoopbackHttp, type LoopbackServer } from '@trawl/testing';

/**
 * Reads one webhook request as a receiver would: its `webhook-id`, and its body verified with the standardwebhooks
 * library (`verified` false, and the body parsed as is, when the signature does not hold).
 */
export function readWebhook(
  wh: Webhook,
  req: IncomingMessage,
  body: string,
): { id: string; body: unknown; verified: boolean } {
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
  const id = headers['webhook-id'] ?? '';
  try {
    return { id, body: wh.verify(body, headers), verified: true };
  } catch {
    return { id, body: JSON.parse(body) as unknown, verified: false };
  }
}

export interface Delivery {
  /** The `webhook-id` header. */
  id: string;
  /** Parsed body: verified with the standardwebhooks library (as a receiver would), or parsed as is when not. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  body: any;
  verified: boolean;
  /** The status this receiver answered with. */
  status: number;
  /** The request's headers (lower-case names). */
  headers: Record<string, string>;
}

export interface WebhookReceiver {
  url: string;
  server: LoopbackServer;
  /** Every request, in arrival order. */
  deliveries: Delivery[];
  /** Requests whose body names this task. */
  deliveriesOf(taskId: string): Delivery[];
  /**
   * Waits until every task has an accepted (2xx) delivery, then `settleMs` more so a late duplicate would show, and
   * returns each task's deliveries in the order of `taskIds`.
   */
  outcomesOf(taskIds: string[], timeoutMs?: number, settleMs?: number): Promise<Delivery[][]>;
  close(): Promise<void>;
}

/**
 * A webhook receiver on loopback that verifies each request's Standard Webhooks signature and answers
 * `answer(attempt)` (default 200), where attempt counts the requests seen with the same webhook-id.
 */
export async function startWebhookReceiver(
  secret: string,
  answer: (attempt: number) => number = () => 200,
): Promise<WebhookReceiver> {
  const wh = new Webhook(secret);
  const deliveries: Delivery[] = [];
  const server = await startLoopbackHttp((req, res, raw) => {
    const { id, body: parsed, verified } = readWebhook(wh, req, raw);
    const status = answer(deliveries.filter((d) => d.id === id).length + 1);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    deliveries.push({ id, body: parsed, verified, status, headers });
    res.statusCode = status;
    res.end();
  });
  const deliveriesOf = (taskId: string) => deliveries.filter((d) => d.body?.taskId === taskId);
  return {
    url: server.url,
    server,
    deliveries,
    deliveriesOf,
    async outcomesOf(taskIds, timeoutMs = 60_000, settleMs = 1500) {
      await eventually(
        () => taskIds.every((id) => deliveriesOf(id).some((d) => d.status >= 200 && d.status < 300)),
        timeoutMs,
        100,
      ).catch((e: unknown) => {
        const missing = taskIds.filter((id) => !deliveriesOf(id).some((d) => d.status < 300));
        throw new Error(
          `${missing.length} of ${taskIds.length} tasks have no outcome (${missing.slice(0, 5)}): ${String(e)}`,
        );
      });
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      return taskIds.map(deliveriesOf);
    },
    close: () => server.close(),
  };
}
