// Helpers for this module's tests: a Context over a real in-memory multistore, and a logger whose lines the
// tests read back.
import { type Logger, pino } from "pino";
import { type Context, newContext } from "../app/context.ts";
import { openMultiStore } from "../store/index.ts";
import type { CommitMultiStore } from "../store/types.ts";
import { UPGRADE_STORE_KEY } from "../x/upgrade/keys.ts";

/** A logger that keeps every line (as parsed JSON) in `lines`. */
export function captureLogger(): { logger: Logger; lines: { level: number; msg: string }[]; messages(): string[] } {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino(
    { level: "debug" },
    {
      write(line: string) {
        lines.push(JSON.parse(line));
      },
    },
  );
  return { logger, lines, messages: () => lines.map((line) => line.msg) };
}

/** A state with the given stores (default: only `upgrade`) and a way to make block contexts over it. */
export interface TestChain {
  store: CommitMultiStore;
  logger: Logger;
  messages(): string[];
  /** A finalize-mode context at `height` over a fresh branch of the latest state (commit it with `commit`). */
  context(height: bigint): Context;
  /** Stages and commits the context's branch. */
  commit(ctx: Context): Promise<void>;
  close(): Promise<void>;
}

/** Opens a memory multistore holding `storeNames`. */
export async function openTestChain(storeNames: string[] = [UPGRADE_STORE_KEY]): Promise<TestChain> {
  const store = await openMultiStore({ backend: "memory", storeNames });
  const { logger, messages } = captureLogger();
  return {
    store,
    logger,
    messages,
    context: (height) => newContext({ multiStore: store.branch(), logger, header: { height } }),
    commit: async (ctx) => {
      await store.stage(ctx.multiStore);
      await store.commit();
    },
    close: () => store.close(),
  };
}
