// A/B of the snapshot restore: the importer of this tree against the one of another checkout (an older build),
// alternating in one process on the same snapshot, so both see the same load. Prints each run's wall time and
// process CPU (every thread: LevelDB's and the hash worker's too) and this thread's CPU, then the medians and their ratios, and checks
// that both builds wrote the same app hash and the same rows (byte for byte; rows only one build wrote are counted by
// table). For example:
//   git worktree add /tmp/restore-old <commit> && ln -s "$PWD/node_modules" /tmp/restore-old/node_modules
//   KEEP=1 node bench/big-state/restore-profile.ts 100000          # builds a state and its snapshot; names the folder
//   node bench/big-state/restore-ab.ts <that folder> /tmp/restore-old [rounds, default 3]
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ClassicLevel } from "classic-level";

type Importer = (path: string) => Promise<string>;

/** The importer of the checkout at `root`: its own snapshot reader, decoder and importState. */
async function importerOf(root: string, snapshots: string): Promise<Importer> {
  const { SnapshotStore } = await import(join(root, "src/snapshots/snapshot-store.ts"));
  const { decodeChunks } = await import(join(root, "src/snapshots/stream-format.ts"));
  const { importState } = await import(join(root, "src/store/index.ts"));
  const store = new SnapshotStore(snapshots);
  const [info] = await store.list();
  return async (path) => {
    const done = await importState({ path, version: info.height, items: decodeChunks(store.chunks(info)) });
    return Buffer.from(done.appHash).toString("hex");
  };
}

/**
 * Whether two LevelDB directories hold the same rows; rows only one side holds are counted by table (the history rows
 * an import before issue 38's round 4 wrote, and the `imported-at` metadata it writes instead), all others must match.
 */
async function compareRows(a: string, b: string): Promise<string> {
  const open = async (path: string) => {
    const db = new ClassicLevel<Uint8Array, Uint8Array>(path, { keyEncoding: "view", valueEncoding: "view" });
    await db.open();
    return db;
  };
  const [x, y] = [await open(a), await open(b)];
  const only = { old: new Map<string, number>(), new: new Map<string, number>() };
  const note = (side: Map<string, number>, key: Uint8Array) => {
    const table = key[0] === 0x6d ? Buffer.from(key).toString("latin1") : String.fromCharCode(key[0]);
    side.set(table, (side.get(table) ?? 0) + 1);
  };
  let same = 0;
  try {
    const ix = x.iterator();
    const iy = y.iterator();
    let [ex, ey] = [await ix.next(), await iy.next()];
    while (ex !== undefined || ey !== undefined) {
      const order = ex === undefined ? 1 : ey === undefined ? -1 : Buffer.compare(ex[0], ey[0]);
      if (order === 0 && ex !== undefined && ey !== undefined) {
        if (Buffer.compare(ex[1], ey[1]) !== 0)
          return `DIFFERENT (the value of a ${String.fromCharCode(ex[0][0])} row)`;
        same++;
        [ex, ey] = [await ix.next(), await iy.next()];
      } else if (order < 0 && ex !== undefined) {
        note(only.old, ex[0]);
        ex = await ix.next();
      } else if (ey !== undefined) {
        note(only.new, ey[0]);
        ey = await iy.next();
      }
    }
  } finally {
    await x.close();
    await y.close();
  }
  const list = (m: Map<string, number>) => [...m].map(([t, n]) => `${n} ${t}`).join(", ") || "none";
  return only.old.size + only.new.size === 0
    ? `same (${same})`
    : `${same} same; only the old build's: ${list(only.old)}; only the new build's: ${list(only.new)}`;
}

const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];

const work = resolve(process.argv[2] ?? "");
const oldRoot = resolve(process.argv[3] ?? "");
const rounds = Number(process.argv[4] ?? 3);
const snapshots = join(work, "snap", "snapshots");
const builds: { name: string; run: Importer; wall: number[]; cpu: number[]; main: number[]; hash?: string }[] = [
  { name: "old", run: await importerOf(oldRoot, snapshots), wall: [], cpu: [], main: [] },
  { name: "new", run: await importerOf(resolve(import.meta.dirname, "../.."), snapshots), wall: [], cpu: [], main: [] },
];
const target = (name: string) => join(work, `ab-${name}.db`);
for (let round = 0; round < rounds; round++) {
  // Alternate which build goes first, so neither always follows the other's garbage and page cache.
  for (const b of round % 2 === 0 ? builds : [...builds].reverse()) {
    await rm(target(b.name), { recursive: true, force: true });
    const load = (await import("node:fs")).readFileSync("/proc/loadavg", "utf8").split(" ")[0];
    const cpu = process.cpuUsage();
    const main = process.threadCpuUsage();
    const t = performance.now();
    b.hash = await b.run(target(b.name));
    const wall = performance.now() - t;
    const used = process.cpuUsage(cpu);
    const mainUsed = process.threadCpuUsage(main);
    b.wall.push(wall);
    b.cpu.push((used.user + used.system) / 1000);
    b.main.push((mainUsed.user + mainUsed.system) / 1000);
    console.log(
      `${b.name}: wall ${wall.toFixed(0)} ms, CPU ${b.cpu.at(-1)?.toFixed(0)} ms, main thread ${b.main.at(-1)?.toFixed(0)} ms (load ${load})`,
    );
  }
}
const [o, n] = builds;
const line = (what: string, pick: (b: (typeof builds)[number]) => number[]) =>
  `${what} old ${median(pick(o)).toFixed(0)} new ${median(pick(n)).toFixed(0)} (${(median(pick(n)) / median(pick(o))).toFixed(3)})`;
console.log(
  `medians: ${line("wall", (b) => b.wall)}; ${line("CPU", (b) => b.cpu)}; ${line("main thread", (b) => b.main)}`,
);
console.log(
  `app hash ${o.hash === n.hash ? "same" : "DIFFERENT"}; rows ${await compareRows(target("old"), target("new"))}`,
);
