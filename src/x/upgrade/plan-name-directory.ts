// Whether a plan name can become the directory a supervisor installs the release into. chainvisor and cosmovisor
// both use `upgrades/<name lower-cased, URL-path-escaped>/`; the chain accepts longer names than any file system
// holds, and such a plan would halt the chain with no supervisor able to switch. chainvisor keeps its own copy of
// this rule (src/visor/layout.ts): the sidecar shares no code with the node.

/** NAME_MAX of Linux file systems: the longest single path component, in bytes. */
export const MAX_DIRECTORY_NAME_BYTES = 255;

/** Go's url.PathEscape, as cosmovisor names upgrade directories: unreserved bytes stay, the rest become %XX. */
export function upgradeDirectoryName(planName: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(planName.toLowerCase())) {
    const c = String.fromCharCode(byte);
    out += /^[A-Za-z0-9\-_.~$&+:=@]$/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * Why a supervisor could not install a release for this plan name, or undefined when it can.
 * @example planNameDirectoryProblem("v2") === undefined
 */
export function planNameDirectoryProblem(planName: string): string | undefined {
  const directory = upgradeDirectoryName(planName);
  if (directory.length <= MAX_DIRECTORY_NAME_BYTES) return undefined;
  return `plan name of ${planName.length} characters is too long: supervisors (chainvisor, cosmovisor) install the release in upgrades/<name>, which would be ${directory.length} bytes and a file name holds at most ${MAX_DIRECTORY_NAME_BYTES}; choose a shorter name`;
}
