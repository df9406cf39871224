// The payload a single-file release carries: the bundled application's files in one buffer, in a format simple
// enough to read with nothing but Node's built-ins (the launcher may load nothing else).
//
//   "CHAINDP2" then, per file: u16 path length, path (UTF-8, '/'-separated, relative), u16 mode, u32 size, bytes.
// Not compressed: the executable travels in a .tar.gz, which compresses it as well as compressing it inside did
// (46.4 MB either way), and the first start of a release (the unpack) no longer inflates ~9 MB (~19 ms of the ~95
// ms it took against ~38 ms for a start from the compiled tree: docs/PERFORMANCE.md). "CHAINDP1" was the same,
// gzip-compressed.

const MAGIC = "CHAINDP2";

/** One file of the payload. */
export interface PayloadFile {
  path: string;
  mode: number;
  data: Uint8Array;
}

/** Packs files (in the order given) into the payload. */
export function packPayload(files: readonly PayloadFile[]): Buffer {
  const parts: Buffer[] = [Buffer.from(MAGIC, "latin1")];
  for (const file of files) {
    const path = Buffer.from(file.path, "utf8");
    if (path.length > 0xffff || file.path.startsWith("/") || file.path.split("/").includes("..")) {
      throw new Error(`payload path ${JSON.stringify(file.path)} is not a relative path of at most 65535 bytes`);
    }
    const head = Buffer.alloc(8);
    head.writeUInt16BE(path.length, 0);
    head.writeUInt16BE(file.mode & 0o7777, 2);
    head.writeUInt32BE(file.data.length, 4);
    parts.push(head.subarray(0, 2), path, head.subarray(2), Buffer.from(file.data));
  }
  return Buffer.concat(parts);
}

/** Unpacks a payload made by {@link packPayload}; throws on anything malformed. */
export function unpackPayload(payload: Uint8Array): PayloadFile[] {
  const buffer = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (buffer.subarray(0, MAGIC.length).toString("latin1") !== MAGIC) throw new Error("not a chaind payload");
  const files: PayloadFile[] = [];
  let at = MAGIC.length;
  while (at < buffer.length) {
    if (at + 2 > buffer.length) throw new Error("truncated payload");
    const pathLength = buffer.readUInt16BE(at);
    const path = buffer.subarray(at + 2, at + 2 + pathLength).toString("utf8");
    at += 2 + pathLength;
    if (at + 6 > buffer.length) throw new Error("truncated payload");
    const mode = buffer.readUInt16BE(at);
    const size = buffer.readUInt32BE(at + 2);
    at += 6;
    if (at + size > buffer.length) throw new Error(`truncated payload at ${path}`);
    if (path.startsWith("/") || path.split("/").includes("..")) throw new Error(`unsafe payload path ${path}`);
    files.push({ path, mode, data: buffer.subarray(at, at + size) });
    at += size;
  }
  return files;
}
