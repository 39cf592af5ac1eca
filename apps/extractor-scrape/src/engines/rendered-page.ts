/** A page as an engine got it: the markup to return and what the result's metadata needs. */
export interface RenderedPage {
  /** Rendered markup (browser) or the body as served (http). */
  html: string;
  /** HTTP status of the page's main response. */
  status: number;
  /** Final URL after redirects. */
  url: string;
  title: string;
  contentType: string | null;
  engine: 'browser' | 'http';
}

export interface ScrapeEngineRequest {
  url: string;
  headers?: Record<string, string>;
  waitFor?: number;
  /** Epoch milliseconds by which the engine must be done. */
  deadline: number;
}
