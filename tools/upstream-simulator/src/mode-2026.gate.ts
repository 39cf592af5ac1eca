import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { headersShowAutomation, JsProof, parseCookies } from './js-proof.gate.js';
import {
  AMAZON_PROOF_COOKIE,
  AWS_WAF_CHALLENGE_JS,
  awsWafChallengePage,
  consentPage,
  deferredPage,
  enableJsWallPage,
  GOOGLE_PROOF_COOKIE,
  type GoogleFlavour,
  keepOnLoopback,
  unusualTrafficPage2026,
} from './pages/walls-2026.page.js';

/** One answer of the simulator. */
export interface SimAnswer {
  status: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** What the 2026 gate needs to know about the page asked for. */
export interface GatedPage {
  site: 'google' | 'amazon';
  /** Google pages: which front end (search or maps) serves it. */
  flavour: GoogleFlavour;
  /** The page's own content type (default HTML); only HTML pages are written by script. */
  contentType?: string;
  render(): string;
}

/** `gl` values for which Google shows its consent interstitial first (EEA, Switzerland, the UK). */
export const CONSENT_GL: ReadonlySet<string> = new Set(
  'at be bg hr cy cz dk ee fi fr de gr hu ie it lv lt lu mt nl pl pt ro sk si es se is li no ch gb uk'.split(' '),
);

/** Robot check of Amazon, as `simulator-server` serves it (passed in to keep one copy). */
export interface Mode2026Pages {
  amazonCaptcha: string;
}

/**
 * The 2026 upstream: what Google and Amazon do in 2025-2026 to a client, by what it is.
 *
 * Google (search, maps pages and the maps JSON endpoint):
 * 1. `HeadlessChrome` in `user-agent`/`sec-ch-ua` → redirect to `/sorry/index` (the unusual-traffic page, 429);
 * 2. an EU/EEA/CH/UK `gl` without a `SOCS` or `CONSENT=YES…` cookie → redirect to the consent interstitial
 *    (`/consent/ml`); "Reject all"/"Accept all" post to `/consent/save`, which sets `SOCS` and redirects back;
 * 3. no valid JavaScript proof cookie (`SG_SS`) → the enable-JavaScript wall (200): a plain HTTP client stops here;
 *    a browser's script proves itself (or, with automation markers, goes to `/sorry/index`) and reloads;
 * 4. a proved client gets the page: HTML pages as a shell whose script writes the content after `load` (and sends a
 *    browser with automation markers to `/sorry/index`), the maps JSON as it is.
 *
 * Amazon (product pages): `HeadlessChrome` in the headers → the robot check (503); no valid `aws-waf-token` cookie →
 * the AWS WAF JavaScript challenge (202), whose script sets the cookie and reloads; a proved client gets the page.
 *
 * Pages shown to a proved client load nothing off the simulator (`keepOnLoopback`).
 */
export class Mode2026Gate {
  constructor(
    private readonly pages: Mode2026Pages,
    private readonly proof = new JsProof(),
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The gate's own URLs (sorry, consent, enablejs retry, challenge script, …), or undefined for any other. */
  async ownPage(req: IncomingMessage, url: URL): Promise<SimAnswer | undefined> {
    const path = url.pathname;
    if (path.startsWith('/sorry/')) {
      const target = safeContinue(url.searchParams.get('continue'));
      return {
        status: 429,
        body: unusualTrafficPage2026(target, req.socket.remoteAddress ?? '127.0.0.1', this.now()),
      };
    }
    if (path.startsWith('/recaptcha/')) return { status: 200, body: '', contentType: 'text/javascript' };
    if (path === '/httpservice/retry/enablejs') {
      return { status: 200, body: this.wall('search', '/search', 'en') };
    }
    if (path === '/consent/ml') {
      const hl = url.searchParams.get('hl') ?? 'en';
      return {
        status: 200,
        body: consentPage(safeContinue(url.searchParams.get('continue')), hl, url.searchParams.get('gl') ?? ''),
      };
    }
    if (path === '/consent/save') {
      if (req.method !== 'POST') return { status: 405, body: 'method not allowed', contentType: 'text/plain' };
      const form = new URLSearchParams(await readBody(req, 64 * 1024));
      const reject = form.get('set_eom') !== 'false';
      const socs = `${reject ? 'CAE' : 'CAI'}SHAgBEhJzaW11bGF0ZWQtY29uc2VudA`;
      return {
        status: 303,
        body: '',
        headers: {
          location: safeContinue(form.get('continue')),
          'set-cookie': `SOCS=${socs}; Path=/; Max-Age=33696000; SameSite=Lax`,
        },
      };
    }
    if (path === '/awswaf/challenge.js')
      return { status: 200, body: AWS_WAF_CHALLENGE_JS, contentType: 'text/javascript' };
    if (path === '/errors/validateCaptcha') return { status: 200, body: this.pages.amazonCaptcha };
    return undefined;
  }

  /** The answer for a generated page, by who asks. */
  page(req: IncomingMessage, url: URL, page: GatedPage): SimAnswer {
    const automated = headersShowAutomation(headerOf(req, 'user-agent'), headerOf(req, 'sec-ch-ua'));
    const cookies = parseCookies(headerOf(req, 'cookie'));
    const here = url.pathname + url.search;
    if (page.site === 'amazon') {
      if (automated) return { status: 503, body: this.pages.amazonCaptcha };
      if (!this.proof.verify(cookies.get(AMAZON_PROOF_COOKIE))) {
        return {
          status: 202,
          body: awsWafChallengePage(
            this.proof.issue(),
            randomBytes(12).toString('base64'),
            randomBytes(48).toString('base64'),
          ),
        };
      }
      return { status: 200, body: keepOnLoopback(page.render()), contentType: page.contentType };
    }

    if (automated) return redirect(`/sorry/index?continue=${encodeURIComponent(here)}`);
    const gl = (url.searchParams.get('gl') ?? '').toLowerCase();
    const hl = url.searchParams.get('hl') ?? 'en';
    const consented = cookies.has('SOCS') || /^YES/i.test(cookies.get('CONSENT') ?? '');
    if (CONSENT_GL.has(gl) && !consented) {
      return redirect(
        `/consent/ml?continue=${encodeURIComponent(here)}&gl=${encodeURIComponent(gl.toUpperCase())}&m=0&pc=srp&hl=${encodeURIComponent(hl)}&src=1`,
      );
    }
    if (!this.proof.verify(cookies.get(GOOGLE_PROOF_COOKIE))) {
      return { status: 200, body: this.wall(page.flavour, here, hl) };
    }
    const body = page.render();
    if (page.contentType !== undefined && !page.contentType.startsWith('text/html')) {
      return { status: 200, body, contentType: page.contentType };
    }
    return { status: 200, body: deferredPage(keepOnLoopback(body), page.flavour, this.proof.issue(), hl) };
  }

  private wall(flavour: GoogleFlavour, requestPath: string, hl: string): string {
    return enableJsWallPage({ sei: this.proof.issue(), flavour, requestPath, hl });
  }
}

function redirect(location: string): SimAnswer {
  return { status: 302, body: '', headers: { location } };
}

/** A same-origin path to go back to (never another host: a browser following it must stay on loopback). */
export function safeContinue(raw: string | null): string {
  if (!raw) return '/';
  let path = raw;
  try {
    const u = new URL(raw, 'http://simulator.local');
    path = u.origin === 'http://simulator.local' ? u.pathname + u.search : '/';
  } catch {
    return '/';
  }
  return path.startsWith('/') && !path.startsWith('//') ? path : '/';
}

function headerOf(req: IncomingMessage, name: string): string {
  const v = req.headers[name];
  return (Array.isArray(v) ? v.join(', ') : v) ?? '';
}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) break;
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}
