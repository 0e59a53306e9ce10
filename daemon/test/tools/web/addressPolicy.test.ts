/** Which addresses web_fetch may reach (security.md#web-fetch). */
import assert from 'node:assert/strict';
import { ConfigFile } from '../../../src/config/configSchema.js';
import { formatIssues, resolveConfig } from '../../../src/config/daemonConfig.js';
import { AddressPolicy, parseNetwork } from '../../../src/tools/web/addressPolicy.js';

const strict = new AddressPolicy({ allowPrivateNetworks: false, privateNetworkAllowlist: [] });

describe('web_fetch address policy', () => {
  it('refuses loopback, private, link-local, unique-local, CGNAT, multicast and unspecified addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.9.10',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '[::1]',
      'fe80::1',
      'fd00::1',
      'fc00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
    ]) {
      assert.match(strict.refusal(address) ?? 'allowed', /non-public/, address);
    }
  });

  it('lets public addresses through', () => {
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '172.32.0.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
    ]) {
      assert.equal(strict.refusal(address), undefined, address);
    }
  });

  it('allows listed private networks only, or all of them with allowPrivateNetworks', () => {
    const listed = new AddressPolicy({
      allowPrivateNetworks: false,
      privateNetworkAllowlist: ['10.1.0.0/16', '::1'],
    });
    assert.equal(listed.refusal('10.1.2.3'), undefined);
    assert.equal(listed.refusal('::1'), undefined);
    assert.match(listed.refusal('10.2.0.1') ?? 'allowed', /non-public/);
    assert.match(listed.refusal('127.0.0.1') ?? 'allowed', /non-public/);
    const open = new AddressPolicy({ allowPrivateNetworks: true, privateNetworkAllowlist: [] });
    assert.equal(open.refusal('127.0.0.1'), undefined);
    assert.equal(open.refusal('fd00::1'), undefined);
  });

  it('parses addresses and CIDR subnets, and nothing else', () => {
    assert.deepEqual(parseNetwork('10.1.0.0/16'), { address: '10.1.0.0', prefix: 16, family: 4 });
    assert.deepEqual(parseNetwork('::1'), { address: '::1', prefix: 128, family: 6 });
    for (const bad of ['10.1.0.0/33', 'example.com', '10.0.0.0/8/8', '10.0.0.0/x', '']) {
      assert.equal(parseNetwork(bad), undefined, bad);
    }
  });

  it('is configured by webFetch in the config file: nothing allowed by default, bad entries named', () => {
    assert.deepEqual(resolveConfig({}, {}, {}).webFetch, {
      allowPrivateNetworks: false,
      privateNetworkAllowlist: [],
    });
    const file = ConfigFile.parse({ webFetch: { privateNetworkAllowlist: ['10.1.0.0/16'] } });
    assert.deepEqual(resolveConfig(file, {}, {}).webFetch.privateNetworkAllowlist, ['10.1.0.0/16']);
    const bad = ConfigFile.safeParse({ webFetch: { privateNetworkAllowlist: ['intranet.local'] } });
    assert.equal(bad.success, false);
    assert.match(
      formatIssues(bad.error!),
      /webFetch\.privateNetworkAllowlist\.0: not an IP address or CIDR subnet/,
    );
  });
});
