import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The proof a page's script gives that it ran: the server hands out a signed nonce (`sei` on Google's wall,
 * `gokuProps.key`/`iv` on Amazon's challenge), the script computes `work(nonce)` and stores `nonce~work` in a cookie,
 * then reloads. The server checks the signature and the work, so the cookie cannot be made without running the
 * script (or this code). Stateless: a nonce is good for as long as the process runs.
 *
 * `PROOF_WORK_JS` is the same function as `proofWork`, as the page ships it (a spec checks they agree).
 */
export class JsProof {
  private readonly secret: Buffer;

  constructor(secret: Buffer = randomBytes(32)) {
    this.secret = secret;
  }

  /** A fresh signed nonce: `<random>.<mac>` (base64url, no `~`). */
  issue(): string {
    const nonce = randomBytes(12).toString('base64url');
    return `${nonce}.${this.mac(nonce)}`;
  }

  /** Whether `value` is `<issued nonce>~<work of it>`. */
  verify(value: string | undefined): boolean {
    if (!value) return false;
    const [signed, work] = value.split('~');
    if (!signed || !work) return false;
    const [nonce, mac] = signed.split('.');
    if (!nonce || !mac) return false;
    const expected = Buffer.from(this.mac(nonce));
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given) && work === proofWork(signed);
  }

  private mac(nonce: string): string {
    return createHmac('sha256', this.secret).update(nonce).digest('base64url').slice(0, 22);
  }
}

/** Rounds of FNV-1a over the nonce: a little work, the same in Node and in the page. */
const ROUNDS = 500;

export function proofWork(nonce: string): string {
  let h = 0x811c9dc5;
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < nonce.length; i++) {
      h ^= nonce.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    h = (h ^ r) >>> 0;
  }
  return `0000000${h.toString(16)}`.slice(-8);
}

/** `proofWork` as page script (ES5, defines `__simWork`). */
export const PROOF_WORK_JS = `function __simWork(s){var h=0x811c9dc5;for(var r=0;r<${ROUNDS};r++){for(var i=0;i<s.length;i++){h^=s.charCodeAt(i);h=Math.imul(h,0x01000193)>>>0;}h=(h^r)>>>0;}return ('0000000'+h.toString(16)).slice(-8);}`;

/**
 * The automation markers a page's script checks (as anti-bot scripts do): `navigator.webdriver === true`, or
 * `HeadlessChrome` in `navigator.userAgent` or in a `navigator.userAgentData` brand. Defines `__simAutomated()`.
 */
export const AUTOMATION_CHECK_JS = `function __simAutomated(){try{if(navigator.webdriver===true)return true;if(/HeadlessChrome/.test(navigator.userAgent))return true;var d=navigator.userAgentData,b=(d&&d.brands)||[];for(var i=0;i<b.length;i++){if(/HeadlessChrome/.test(b[i].brand))return true;}}catch(e){}return false;}`;

/** Whether request headers carry an automation marker: `HeadlessChrome` in `user-agent` or `sec-ch-ua`. */
export function headersShowAutomation(userAgent: string, secChUa: string): boolean {
  return /HeadlessChrome/.test(userAgent) || /HeadlessChrome/.test(secChUa);
}

/** Cookies of a `cookie` header, by name (first one wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}
