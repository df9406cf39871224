// Progress of `chaind replay`: a bar with the height, heights/s and the running release on a TTY (cli-progress,
// on stderr so stdout keeps only the report); nothing at all otherwise, so logs and pipes stay clean.
import type { ReplayProgress } from "./replay-home.ts";

/** Receives each replayed height; `stop` removes the bar. */
export interface ProgressPrinter {
  update(progress: ReplayProgress): void;
  stop(): void;
}

/** Heights per second over `ms` milliseconds (0 when no time has passed). */
export function heightsPerSecond(heights: number, ms: number): number {
  return ms > 0 ? (heights * 1000) / ms : 0;
}

/**
 * A progress printer for `stream`: a cli-progress bar when it is a TTY, otherwise one that prints nothing.
 *
 * @example
 * const progress = await createProgressPrinter(process.stderr);
 * await replayHome({ ..., onProgress: (p) => progress.update(p) }).finally(() => progress.stop());
 */
export async function createProgressPrinter(stream: NodeJS.WriteStream): Promise<ProgressPrinter> {
  if (stream.isTTY !== true) return { update() {}, stop() {} };
  const { SingleBar } = await import("cli-progress");
  const bar = new SingleBar({
    stream,
    format: "replay [{bar}] {value}/{total} heights | {speed} heights/s | release {release}",
    hideCursor: true,
  });
  let started = false;
  return {
    update(p) {
      const total = Number(p.tip - p.base + 1n);
      const done = Number(p.height - p.base + 1n);
      const payload = { speed: heightsPerSecond(done, p.elapsedMs).toFixed(1), release: p.release };
      if (!started) {
        bar.start(total, done, payload);
        started = true;
      } else {
        bar.update(done, payload);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
