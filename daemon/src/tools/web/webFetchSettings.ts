/**
 * The daemon's web_fetch settings, set once at startup from the config
 * (startDaemon.ts), like the sandbox settings: the tool is built per session
 * far from the config. Before startup, and in tests that set nothing, every
 * non-public address is refused.
 */
import type { AddressPolicySettings } from './addressPolicy.js';

export type WebFetchSettings = AddressPolicySettings;

const DEFAULTS: WebFetchSettings = { allowPrivateNetworks: false, privateNetworkAllowlist: [] };

let configured: WebFetchSettings | undefined;

export function configureWebFetch(settings: WebFetchSettings): void {
  configured = { ...settings, privateNetworkAllowlist: [...settings.privateNetworkAllowlist] };
}

export function webFetchSettings(): WebFetchSettings {
  return configured ?? DEFAULTS;
}
