// The invariants a chain declares, run by the rehearsal: every module's ModuleInvariant (src/app/module.ts) on the
// state before and after the upgrade, and the upgrade's own UpgradeCheck (src/x/upgrade/install.ts) — `before` on
// the state the upgrade starts from, `after` on the upgraded state with what `before` returned. A check that
// throws is a failed check, reported by name with its message; it never stops the rehearsal.
import { performance } from "node:perf_hooks";
import type { Context } from "../../app/context.ts";
import type { AppModule } from "../../app/module.ts";
import type { UpgradeCheck } from "../../x/upgrade/install.ts";

/** One check's outcome. */
export interface CheckResult {
  /** `<module>/<invariant>` or `<upgrade>/<check>`. */
  name: string;
  kind: "invariant" | "upgrade-check";
  /** When it ran: on the state before the upgrade, or after it (and, with --follow, after the last followed block). */
  phase: "before" | "after" | "followed";
  passed: boolean;
  /** The check's error message when it failed. */
  error?: string;
  /** How long it ran: the chain's own code, reported apart from the rehearsal's work (a check may read every record). */
  ms: number;
}

/** Runs every module's invariants against `ctx`. */
export async function runInvariants(
  modules: readonly AppModule[],
  ctx: () => Context,
  phase: CheckResult["phase"],
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const module of modules) {
    for (const invariant of module.invariants ?? []) {
      results.push(await outcome(`${module.name}/${invariant.name}`, "invariant", phase, () => invariant.check(ctx())));
    }
  }
  return results;
}

/** Runs the upgrade's `before` checks; returns their results and what each returned (for its `after`). */
export async function runBeforeChecks(
  upgrade: string,
  checks: readonly UpgradeCheck[],
  ctx: () => Context,
): Promise<{ results: CheckResult[]; data: Map<UpgradeCheck, unknown> }> {
  const results: CheckResult[] = [];
  const data = new Map<UpgradeCheck, unknown>();
  for (const check of checks) {
    if (check.before === undefined) continue;
    const before = check.before;
    results.push(
      await outcome(`${upgrade}/${check.name}`, "upgrade-check", "before", async () => {
        data.set(check, await before(ctx()));
      }),
    );
  }
  return { results, data };
}

/** Runs the upgrade's `after` checks (skipping those whose `before` failed: they have nothing to compare with). */
export async function runAfterChecks(
  upgrade: string,
  checks: readonly UpgradeCheck[],
  data: Map<UpgradeCheck, unknown>,
  ctx: () => Context,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    if (check.before !== undefined && !data.has(check)) continue;
    results.push(
      await outcome(`${upgrade}/${check.name}`, "upgrade-check", "after", () => check.after(ctx(), data.get(check))),
    );
  }
  return results;
}

async function outcome(
  name: string,
  kind: CheckResult["kind"],
  phase: CheckResult["phase"],
  run: () => Promise<void>,
): Promise<CheckResult> {
  const started = performance.now();
  try {
    await run();
    return { name, kind, phase, passed: true, ms: performance.now() - started };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    return { name, kind, phase, passed: false, error, ms: performance.now() - started };
  }
}
