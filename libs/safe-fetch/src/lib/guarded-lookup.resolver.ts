import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import { EMPTY_ALLOW_LIST, isAddressAllowed, isHostAllowlisted, type AllowList } from './address.policy.js';
import { refusal, systemResolver, type Resolver } from './check-url.guard.js';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** The `lookup` function net.connect calls; both the single-address and the `all: true` forms. */
export type ConnectLookup = (
  hostname: string,
  options: LookupOneOptions | LookupAllOptions,
  callback: LookupCallback,
) => void;

/**
 * A `lookup` for net/tls.connect that resolves the host and refuses the connection when any address fails the SSRF
 * decision. This is the check at connect time: it sees the address the socket will really use, so a DNS answer
 * that changes between the URL check and the connection (rebinding) is still refused.
 */
export function guardedLookup(allow: AllowList = EMPTY_ALLOW_LIST, resolve: Resolver = systemResolver): ConnectLookup {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (!isHostAllowlisted(hostname, allow)) {
          const refused = addresses.find((a) => !isAddressAllowed(a, allow));
          if (refused !== undefined || addresses.length === 0) {
            callback(refusal(hostname, refused) as unknown as NodeJS.ErrnoException, '', 4);
            return;
          }
        }
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const list: LookupAddress[] = addresses
          .map((address) => ({ address, family: isIP(address) }))
          .filter((a) => wanted === 0 || a.family === wanted);
        if (list.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`no address of family ${wanted} for ${hostname}`);
          err.code = 'ENOTFOUND';
          callback(err, '', 4);
          return;
        }
        if (options.all) callback(null, list);
        else callback(null, list[0].address, list[0].family);
      },
      (e: NodeJS.ErrnoException) => callback(e, '', 4),
    );
  };
}
