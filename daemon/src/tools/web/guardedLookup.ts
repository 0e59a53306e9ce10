/**
 * DNS resolution that refuses addresses the policy forbids, handed to the
 * HTTP request as its `lookup`: the address checked is the very address the
 * socket connects to, so a name that resolves to a public address when
 * checked and to 127.0.0.1 when connecting (DNS rebinding) cannot get
 * through. Node skips `lookup` for IP literals; fetchPage checks those itself.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { AddressPolicy } from './addressPolicy.js';

/** A connection web_fetch refuses to make; its message is what the model reads. */
export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
}

export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const permitted = addresses.filter((entry) => policy.refusal(entry.address) === undefined);
      if (permitted.length === 0) {
        const shown = addresses.map((entry) => entry.address).join(', ');
        const refused = new RefusedAddressError(
          `refused: ${hostname} resolves to ${shown || 'no address'}, a loopback, private, link-local or otherwise non-public address; web_fetch only reaches the public internet`,
        );
        return callback(refused, '', 0);
      }
      if (options.all) return callback(null, permitted);
      const first = permitted[0]!;
      return callback(null, first.address, first.family);
    });
  };
}
