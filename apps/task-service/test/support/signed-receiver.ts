import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { startLoopbackHttp, type LoopbackServer } from '@trawl/testing';

export interface Delivery {
  id: string;
  /** Parsed body, after the signature was verified with the standardwebhooks library (as a receiver would). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads arbitrary JSON
  body: any;
  verified: boolean;
  status: number;
}

export interface SignedReceiver {
  url: string;
  server: LoopbackServer;
  /** Every request, answered or not, in arrival order. */
  deliveries: Delivery[];
  close(): Promise<void>;
}

/**
 * A webhook receiver on loopback that verifies each request's Standard Webhooks signature and answers with
 * `answer(attempt)` (default 200), where attempt counts requests with the same webhook-id.
 */
export async function startSignedReceiver(
  secret: string,
  answer: (attempt: number, res: ServerResponse) => number = () => 200,
): Promise<SignedReceiver> {
  const wh = new Webhook(secret);
  const deliveries: Delivery[] = [];
  const server = await startLoopbackHttp((req, res, body) => {
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    let verified = false;
    let parsed: unknown = null;
    try {
      parsed = wh.verify(body, headers);
      verified = true;
    } catch {
      parsed = JSON.parse(body) as unknown;
    }
    const id = headers['webhook-id'] ?? '';
    const attempt = deliveries.filter((d) => d.id === id).length + 1;
    const status = answer(attempt, res);
    deliveries.push({ id, body: parsed, verified, status });
    res.statusCode = status;
    res.end();
  });
  return { url: server.url, server, deliveries, close: () => server.close() };
}
