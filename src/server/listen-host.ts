// Which address a listener given a host name binds. Node's listen(port, "localhost") binds the first address the
// resolver returns, which is ::1 on hosts whose /etc/hosts lists it (most Linux images): a client that dials
// 127.0.0.1, as the node's own printout and upstream's docs do, is then refused. Go's net.Listen, which upstream's
// servers use, takes the first IPv4 address of a name instead; this does the same.
import { isIP } from "node:net";

/** Every address a name resolves to, in the resolver's order. */
export type LookupAll = (host: string) => Promise<{ address: string; family: number }[]>;

const { lookup } = process.getBuiltinModule("node:dns/promises");
const systemLookup: LookupAll = (host) => lookup(host, { all: true });

/**
 * The address to bind for `host`: an IP literal (or "", every address) as it is; a name's first IPv4
 * address, else its first address. A name that does not resolve is returned as it is, so that
 * listen reports the resolver's error with the name in it.
 */
export async function listenAddressFor(host: string, lookupAll: LookupAll = systemLookup): Promise<string> {
  if (host === "" || isIP(host) !== 0) return host;
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookupAll(host);
  } catch {
    return host;
  }
  return (addresses.find((entry) => entry.family === 4) ?? addresses[0])?.address ?? host;
}
