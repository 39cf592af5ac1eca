import { Agent } from 'node:https';
import { connect, type Socket } from 'node:net';

/**
 * The documented way to point the `serpapi` npm client at Trawl (docs/clients/serpapi.md): its requests go to
 * serpapi.com:443 over https, and `requestOptions.agent` decides the connection. This agent opens a plain TCP
 * connection to Trawl instead; the client writes the same HTTP request over it.
 */
export class TrawlSerpApiAgent extends Agent {
  constructor(private readonly trawl: URL) {
    super({ keepAlive: false });
  }

  override createConnection(): Socket {
    return connect(Number(this.trawl.port || 80), this.trawl.hostname);
  }
}
