// The pages a 2025-2026 upstream answers with instead of content, and the script-rendered shell it serves a real
// browser. Modelled on real captures in ../shared/fixtures (see the README for which): Google's enable-JavaScript
// wall (serp-deepresearch-2025-ai-tools-ptbr.html carries its <noscript> refresh), its "unusual traffic" page
// (serp-openserp-2026-captcha.html), its consent interstitial, Google Maps' <noscript> (maps-cocli-2026-*.html) and
// Amazon's AWS WAF JavaScript challenge. Every URL a page loads is on the simulator's own origin: a browser driven
// against the simulator never leaves loopback. Pure: no I/O.
import { AUTOMATION_CHECK_JS, PROOF_WORK_JS } from '../js-proof.gate.js';

/** Which front end a Google page belongs to: decides its <noscript> and its wall. */
export type GoogleFlavour = 'search' | 'maps';

/** Cookie Google's wall script sets (the simulator's proof; the name follows Google's SearchGuard cookie). */
export const GOOGLE_PROOF_COOKIE = 'SG_SS';
/** Cookie Amazon's challenge script sets, as AWS WAF does. */
export const AMAZON_PROOF_COOKIE = 'aws-waf-token';
/** How long after `load` the shell writes its content (Google writes results after load, too). */
export const DEFERRED_RENDER_MS = 50;

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** A JS string literal safe inside <script> (no `</script>`, no `<!--`). */
const jsString = (s: string): string =>
  JSON.stringify(s)
    .replace(/</g, '\\u003c')
    .replace(/\u2028|\u2029/g, ' ');

/**
 * Runs `f` just after `load` (defines `afterLoad`): a wall navigates on only once its page has loaded, so a browser
 * driver waiting for the first `load` is never interrupted by the reload.
 */
const AFTER_LOAD_JS = `function afterLoad(f){if(document.readyState==='complete')setTimeout(f,0);else window.addEventListener('load',function(){setTimeout(f,0);});}`;

const SORRY_REDIRECT_JS = `location.replace('/sorry/index?continue='+encodeURIComponent(location.pathname+location.search));`;

/** Maps' own <noscript>, as every real maps page carries it. */
const MAPS_NOSCRIPT = `<noscript><p>When you have eliminated the <strong>JavaScript</strong>, whatever remains must be an empty page.</p><p><a href="https://support.google.com/maps/?hl=en&amp;authuser=0&amp;p=no_javascript" target="_blank">Enable JavaScript to see Google Maps.</a></p></noscript>`;

/** Search's <noscript> refresh to the enable-JavaScript retry URL (in every 2025+ results page, too). */
function searchNoscript(sei: string, lang: string): string {
  const here = lang.startsWith('de')
    ? ['Klicke', 'hier', ', wenn du nicht innerhalb weniger Sekunden weitergeleitet wirst.']
    : lang.startsWith('pt')
      ? ['Clique', 'aqui', ' se você não for redirecionado em alguns segundos.']
      : ['Please click', 'here', ' if you are not redirected within a few seconds.'];
  const url = `/httpservice/retry/enablejs?sei=${encodeURIComponent(sei)}`;
  return `<noscript><style>table,div,span,p{display:none}</style><meta content="0;url=${esc(url)}" http-equiv="refresh"><div style="display:block">${here[0]} <a href="${esc(url)}">${here[1]}</a>${here[2]}</div></noscript>`;
}

export interface EnableJsWallOptions {
  /** The signed nonce the script proves itself on (`JsProof.issue()`). */
  sei: string;
  flavour: GoogleFlavour;
  /** Path and query of the page asked for (the "click here" link). */
  requestPath: string;
  hl: string;
}

/**
 * What Google serves a client that has not proved it runs JavaScript (search since January 2025; the maps client
 * too, see the README): no results, a <noscript> for clients without JavaScript (search: a refresh to
 * `/httpservice/retry/enablejs?sei=…`; maps: "Enable JavaScript to see Google Maps"), and a script that, in a real
 * browser, checks for automation markers (→ the unusual-traffic page), computes its proof, stores it in a cookie and
 * reloads. A plain HTTP client gets this page every time.
 */
export function enableJsWallPage({ sei, flavour, requestPath, hl }: EnableJsWallOptions): string {
  const title = flavour === 'maps' ? 'Google Maps' : 'Google Search';
  const noscript = flavour === 'maps' ? MAPS_NOSCRIPT : searchNoscript(sei, hl);
  const sep = requestPath.includes('?') ? '&' : '?';
  const retry = `${requestPath}${sep}emsg=SG_REL&sei=${encodeURIComponent(sei)}`;
  const script = `(function(){${PROOF_WORK_JS}${AUTOMATION_CHECK_JS}${AFTER_LOAD_JS}var sei=${jsString(sei)};
afterLoad(function(){if(__simAutomated()){${SORRY_REDIRECT_JS}return;}
var tk='sg-tries:'+location.pathname+location.search,tries=0;try{tries=+(sessionStorage.getItem(tk)||0);sessionStorage.setItem(tk,String(tries+1));}catch(e){}
if(tries>=3)return;
document.cookie='${GOOGLE_PROOF_COOKIE}='+sei+'~'+__simWork(sei)+'; path=/; SameSite=Lax';
location.reload();});})();`;
  return `<!DOCTYPE html><html lang="${esc(hl)}"><head><meta charset="UTF-8"><title>${title}</title><style>body{background-color:#fff}</style></head><body>${noscript}<script>${script}</script><div style="display:none" aria-hidden="true">If you're having trouble accessing ${title}, please <a href="${esc(retry)}">click here</a>, or send <a href="https://support.google.com/websearch">feedback</a>.</div></body></html>`;
}

/**
 * Google's "unusual traffic" page in its 2026 shape (serp-openserp-2026-captcha.html): the reCAPTCHA form posting to
 * `index`, the hidden `q` and `continue`, "About this page", the IP address and time lines. The reCAPTCHA script is
 * loaded from the simulator (`/recaptcha/enterprise.js`, empty), not from google.com.
 */
export function unusualTrafficPage2026(continueUrl: string, remoteAddress: string, now: Date): string {
  const c = esc(continueUrl);
  return `<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"><meta name="viewport" content="initial-scale=1"><title>${c}</title></head><body style="font-family:arial,sans-serif;background-color:#fff;color:#000;padding:20px;font-size:18px;overscroll-behavior:contain" onload='e=document.getElementById("captcha"),e&&e.focus()'><div style="max-width:400px"><hr noshade="" size="1" style="color:#ccc;background-color:#ccc"><br><form id="captcha-form" action="index" method="post"><noscript><div style="font-size:13px">In order to continue, please enable javascript on your web browser.</div></noscript><script src="/recaptcha/enterprise.js" async="" defer=""></script><script>var submitCallback=function(t){document.getElementById("captcha-form").submit()}</script><div id="recaptcha" class="g-recaptcha" data-sitekey="simulated-site-key" data-callback="submitCallback" data-s="simulated"></div><input type="hidden" name="q" value="simulated"><input type="hidden" name="continue" value="${c}"></form><hr noshade="" size="1" style="color:#ccc;background-color:#ccc"><div style="font-size:13px"><b>About this page</b><br><br>Our systems have detected unusual traffic from your computer network. This page checks to see if it's really you sending the requests, and not a robot.<a href="#" onclick='document.getElementById("infoDiv").style.display="block"'>Why did this happen?</a><br><br><div id="infoDiv" style="display:none;background-color:#eee;padding:10px;margin:0 0 15px 0;line-height:1.4em">This page appears when Google automatically detects requests coming from your computer network which appear to be in violation of the<a href="//www.google.com/policies/terms/">Terms of Service</a>. The block will expire shortly after those requests stop. In the meantime, solving the above CAPTCHA will let you continue to use our services.<br><br>This traffic may have been sent by malicious software, a browser plug-in, or a script that sends automated requests. If you share your network connection, ask your administrator for help — a different computer using the same IP address may be responsible.<a href="//support.google.com/websearch/answer/86640">Learn more</a><br><br>Sometimes you may be asked to solve the CAPTCHA if you are using advanced terms that robots are known to use, or sending requests very quickly.</div><br><div style="font-size:13px;line-break:anywhere">IP address: ${esc(remoteAddress)}<br>Time: ${now.toISOString().replace(/\.\d{3}Z$/, 'Z')}<br>URL: ${c}<br></div></div></div></body></html>`;
}

const CONSENT_UI: Record<string, { title: string; intro: string; reject: string; accept: string; more: string }> = {
  en: {
    title: 'Before you continue to Google',
    intro: 'We use cookies and data to',
    reject: 'Reject all',
    accept: 'Accept all',
    more: 'More options',
  },
  de: {
    title: 'Bevor Sie zu Google weitergehen',
    intro: 'Wir verwenden Cookies und Daten, um',
    reject: 'Alle ablehnen',
    accept: 'Alle akzeptieren',
    more: 'Weitere Optionen',
  },
  fr: {
    title: "Avant d'accéder à Google",
    intro: 'Nous utilisons des cookies et des données pour',
    reject: 'Tout refuser',
    accept: 'Tout accepter',
    more: "Plus d'options",
  },
  es: {
    title: 'Antes de ir a Google',
    intro: 'Usamos cookies y datos para',
    reject: 'Rechazar todo',
    accept: 'Aceptar todo',
    more: 'Más opciones',
  },
  it: {
    title: 'Prima di continuare su Google',
    intro: 'Utilizziamo cookie e dati per',
    reject: 'Rifiuta tutto',
    accept: 'Accetta tutto',
    more: 'Altre opzioni',
  },
  pt: {
    title: 'Antes de continuar para o Google',
    intro: 'Usamos cookies e dados para',
    reject: 'Rejeitar tudo',
    accept: 'Aceitar tudo',
    more: 'Mais opções',
  },
};

/**
 * consent.google.com's "Before you continue to Google" in the simulator (`/consent/ml?continue=…`): two forms posting
 * to `/consent/save`, `set_eom=true` ("Reject all") and `set_eom=false` ("Accept all"), each carrying `continue`.
 * Either sets the `SOCS` cookie and sends the browser back to `continue`.
 */
export function consentPage(continuePath: string, hl: string, gl: string): string {
  const ui = CONSENT_UI[hl.slice(0, 2).toLowerCase()] ?? CONSENT_UI.en;
  const form = (eom: boolean, label: string): string =>
    `<form action="/consent/save" method="POST"><input type="hidden" name="gl" value="${esc(gl.toUpperCase())}"><input type="hidden" name="m" value="0"><input type="hidden" name="app" value="0"><input type="hidden" name="pc" value="srp"><input type="hidden" name="continue" value="${esc(continuePath)}"><input type="hidden" name="x" value="6"><input type="hidden" name="hl" value="${esc(hl)}"><input type="hidden" name="src" value="1"><input type="hidden" name="cm" value="2"><input type="hidden" name="set_eom" value="${eom}"><button class="VfPpkd-LgbsSe" jsname="${eom ? 'tWT92d' : 'b3VHJd'}" aria-label="${esc(label)}"><span class="VfPpkd-vQzf8d">${esc(label)}</span></button></form>`;
  return `<!DOCTYPE html><html lang="${esc(hl)}" dir="ltr"><head><meta charset="utf-8"><title>${esc(ui.title)}</title></head><body><div class="KxvlWc"><div class="saveButtonContainer"><h1 class="I90TVb" id="S3BnEe">${esc(ui.title)}</h1><div class="qqtRac"><div>${esc(ui.intro)}</div><ul><li>Deliver and maintain Google services</li><li>Track outages and protect against spam, fraud and abuse</li><li>Measure audience engagement and site statistics</li></ul></div><div class="VtwTSb">${form(true, ui.reject)}${form(false, ui.accept)}</div><div><a href="/consent/ml?continue=${encodeURIComponent(continuePath)}&amp;hl=${encodeURIComponent(hl)}&amp;m=1">${esc(ui.more)}</a></div></div></div></body></html>`;
}

/**
 * Maps' feed loads its next cards when scrolled to the end: `data-sim-more` names where they are; each answer is
 * `<div data-sim-next="…">cards</div>` (next URL, or '' at the end). Defines `feedMore()`.
 */
const FEED_MORE_JS = `function feedMore(){var f=document.querySelector('[role="feed"][data-sim-more]');if(!f)return;var busy=false;
function check(){var u=f.getAttribute('data-sim-more');if(busy||!u)return;if(f.scrollTop+f.clientHeight<f.scrollHeight-50)return;busy=true;
fetch(u,{credentials:'same-origin'}).then(function(r){return r.text();}).then(function(h){var t=document.createElement('template');t.innerHTML=h;
var box=t.content.firstElementChild;var n=box?box.getAttribute('data-sim-next')||'':'';
while(box&&box.firstChild)f.appendChild(box.firstChild);if(n)f.setAttribute('data-sim-more',n);else f.removeAttribute('data-sim-more');
busy=false;setTimeout(check,0);},function(){busy=false;});}
f.addEventListener('scroll',check);}`;

/**
 * The shell a browser gets once it has proved itself: the page's head, a body without content (only the flavour's
 * <noscript>), and a script that, after `load`, checks for automation markers (→ the unusual-traffic page) and writes
 * the page's real body into the document from the data it carries (base64 of the body's HTML, like Google's deferred
 * rendering from embedded data). The DOM after that is the HTTP-friendly page's body, which the parsers read.
 * Maps shells also load a feed's next cards on scroll (`FEED_MORE_JS`). A fragment without `<body>` (those cards) is
 * returned as it is.
 */
export function deferredPage(page: string, flavour: GoogleFlavour, sei: string, hl: string): string {
  const open = /<body[^>]*>/i.exec(page);
  const close = page.toLowerCase().lastIndexOf('</body>');
  if (!open || close < open.index) return page;
  const head = page.slice(0, open.index);
  const body = page.slice(open.index + open[0].length, close);
  const data = Buffer.from(body, 'utf8').toString('base64');
  const noscript = flavour === 'maps' ? MAPS_NOSCRIPT : searchNoscript(sei, hl);
  const script = `(function(){${AUTOMATION_CHECK_JS}var d=${jsString(data)};
function render(){if(__simAutomated()){${SORRY_REDIRECT_JS}return;}try{sessionStorage.removeItem('sg-tries:'+location.pathname+location.search);}catch(e){}
var s=atob(d),b=new Uint8Array(s.length);for(var i=0;i<s.length;i++)b[i]=s.charCodeAt(i);
document.body.innerHTML=new TextDecoder().decode(b);${flavour === 'maps' ? 'feedMore();' : ''}}${flavour === 'maps' ? FEED_MORE_JS : ''}
function later(){setTimeout(render,${DEFERRED_RENDER_MS});}
if(document.readyState==='complete')later();else window.addEventListener('load',later);})();`;
  return `${head}${open[0]}${noscript}<script>${script}</script></body></html>`;
}

/**
 * Amazon's AWS WAF JavaScript challenge (served with 202): `window.gokuProps` (key, iv, context), the challenge
 * script (here `/awswaf/challenge.js` on the simulator, really `<id>.token.awswaf.com/…/challenge.js`) and the
 * `AwsWafIntegration` calls that get a token (the `aws-waf-token` cookie) and reload; a <noscript> for clients
 * without JavaScript.
 */
export function awsWafChallengePage(key: string, iv: string, context: string): string {
  const props = JSON.stringify({ key, iv, context }).replace(/</g, '\\u003c');
  return `<!DOCTYPE html>
<html lang="en">
<head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title></title>
    <style>body{font-family:"Arial"}</style>
    <script type="text/javascript">
    window.awsWafCookieDomainList = [];
    window.gokuProps = ${props};
    </script>
    <script src="/awswaf/challenge.js"></script>
</head>
<body>
    <div id="challenge-container"></div>
    <script type="text/javascript">
        AwsWafIntegration.saveReferrer();
        AwsWafIntegration.checkForceRefresh().then((forceRefresh) => {
            if (forceRefresh) {
                AwsWafIntegration.forceRefreshToken().then(() => {
                    window.location.reload(true);
                });
            } else {
                AwsWafIntegration.getToken().then(() => {
                    window.location.reload(true);
                });
            }
        });
    </script>
    <noscript>
        <h1>JavaScript is disabled</h1>
        In order to continue, we need to verify that you're not a robot.
        This requires JavaScript. Enable JavaScript and then reload the page.
    </noscript>
</body>
</html>`;
}

/**
 * The simulator's `challenge.js`: `AwsWafIntegration` whose `getToken()` computes the proof on `gokuProps.key`,
 * stores it as the `aws-waf-token` cookie and resolves; a browser with automation markers is sent to the robot check
 * (`/errors/validateCaptcha`) instead.
 */
export const AWS_WAF_CHALLENGE_JS = `(function(){${PROOF_WORK_JS}${AUTOMATION_CHECK_JS}
${AFTER_LOAD_JS}function token(){return new Promise(function(resolve){afterLoad(function(){
if(__simAutomated()){location.replace('/errors/validateCaptcha?amzn-r='+encodeURIComponent(location.pathname+location.search));return;}
var tk='waf-tries:'+location.pathname+location.search,tries=0;try{tries=+(sessionStorage.getItem(tk)||0);sessionStorage.setItem(tk,String(tries+1));}catch(e){}
if(tries>=3)return;
var k=window.gokuProps&&window.gokuProps.key||'';
document.cookie='${AMAZON_PROOF_COOKIE}='+k+'~'+__simWork(k)+'; path=/; SameSite=Lax';
resolve(true);});});}
window.AwsWafIntegration={saveReferrer:function(){},checkForceRefresh:function(){return Promise.resolve(false);},
forceRefreshToken:token,getToken:token,hasToken:function(){return document.cookie.indexOf('${AMAZON_PROOF_COOKIE}=')>=0;}};})();`;

/** A transparent 1×1 GIF. */
const BLANK_IMAGE = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

/**
 * The page with every `<img src>` that points off the simulator replaced by a blank data image, so a browser shown
 * the page never connects anywhere but loopback. The image URLs stay where parsers read them (the image block's JSON,
 * `data-old-hires`, `data-a-dynamic-image`).
 */
export function keepOnLoopback(html: string): string {
  return html.replace(/(<img\b[^>]*?\ssrc=)(["'])https?:\/\/[^"']*\2/gi, `$1$2${BLANK_IMAGE}$2`);
}
