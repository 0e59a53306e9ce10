/** The package version, reported by `arbor --version` beside the protocol version. */
export const PROTOCOL_PACKAGE_VERSION = '0.1.0';
