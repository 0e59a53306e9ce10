/**
 * Which addresses web_fetch may connect to (security.md#web-fetch). A page
 * the model asks for could point at the user's own machine or network (the
 * router's admin page, a cloud metadata endpoint, a database on localhost):
 * every address that is not plainly on the public internet is refused, unless
 * the config allows private networks, all of them or listed ones. BlockList
 * matches IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) against the IPv4
 * rules too.
 */
import { BlockList, isIP } from 'node:net';

const REFUSED_IPV4: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network", the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata endpoints live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking networks
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

const REFUSED_IPV6: readonly [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed privately)
  ['fc00::', 7], // unique-local
  ['ff00::', 8], // multicast
];

const nonPublic = new BlockList();
for (const [network, prefix] of REFUSED_IPV4) nonPublic.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of REFUSED_IPV6) nonPublic.addSubnet(network, prefix, 'ipv6');

const familyName = (family: number): 'ipv4' | 'ipv6' => (family === 6 ? 'ipv6' : 'ipv4');

/** An address, or a subnet in CIDR notation (`10.1.0.0/16`, `fd00::/8`); undefined when neither. */
export function parseNetwork(
  text: string,
): { address: string; prefix: number; family: 4 | 6 } | undefined {
  const [address = '', prefixText, extra] = text.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? String(max)) || prefix > max) return undefined;
  return { address, prefix, family: family === 4 ? 4 : 6 };
}

export interface AddressPolicySettings {
  /** Every non-public address may be reached. */
  allowPrivateNetworks: boolean;
  /** Non-public addresses or subnets that may be reached all the same. */
  privateNetworkAllowlist: readonly string[];
}

export class AddressPolicy {
  private readonly allowed = new BlockList();

  constructor(private readonly settings: AddressPolicySettings) {
    for (const entry of settings.privateNetworkAllowlist) {
      const network = parseNetwork(entry);
      if (network === undefined) throw new Error(`not an address or subnet: ${entry}`);
      this.allowed.addSubnet(network.address, network.prefix, familyName(network.family));
    }
  }

  /** Why `address` (an IP literal, brackets allowed) must not be connected to; undefined when it may. */
  refusal(address: string): string | undefined {
    const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
    const family = isIP(bare);
    if (family === 0) return `${address} is not an IP address`;
    if (this.settings.allowPrivateNetworks) return undefined;
    const type = familyName(family);
    if (!nonPublic.check(bare, type) || this.allowed.check(bare, type)) return undefined;
    return `${bare} is a loopback, private, link-local or otherwise non-public address`;
  }
}
