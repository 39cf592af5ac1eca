'use strict';
/* global module */
// light-my-request (Fastify's inject) requires `cookie`, an ES-module-only package that Jest's native ESM mode cannot
// `require`. The in-process tests never send cookies through inject, so this stand-in only has to exist; it refuses
// the one use light-my-request makes of it rather than serialise a cookie wrongly.
function stringifySetCookie() {
  throw new Error('cookies are not supported by the gateway test harness (apps/gateway/test/support/cookie-shim.cjs)');
}
module.exports = { stringifySetCookie };
