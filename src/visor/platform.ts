// The host platform in Go's naming, which is what the keys of a plan's `binaries` map use (`linux/amd64`).

const GO_OS: Readonly<Record<string, string>> = {
  linux: "linux",
  darwin: "darwin",
  win32: "windows",
  freebsd: "freebsd",
  openbsd: "openbsd",
  netbsd: "netbsd",
  sunos: "solaris",
  aix: "aix",
  android: "android",
};

const GO_ARCH: Readonly<Record<string, string>> = {
  x64: "amd64",
  arm64: "arm64",
  ia32: "386",
  arm: "arm",
  ppc64: "ppc64le",
  s390x: "s390x",
  riscv64: "riscv64",
  loong64: "loong64",
  mips: "mips",
  mipsel: "mipsle",
};

/**
 * The `<os>/<arch>` key of this machine in Go's naming.
 * @example goPlatform() // "linux/amd64" on a 64-bit Intel/AMD Linux machine
 */
export function goPlatform(platform: string = process.platform, arch: string = process.arch): string {
  return `${GO_OS[platform] ?? platform}/${GO_ARCH[arch] ?? arch}`;
}
