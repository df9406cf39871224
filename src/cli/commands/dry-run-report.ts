// The dry run's report as JSON (`upgrade dry-run -o json`) and as text; `upgrade rehearse` prints these same
// fields first (rehearse-report.ts), so its output is a superset of the dry run's.
import type { DryRunReport } from "../../node/dry-run.ts";

const ms = (value: number) => Math.round(value * 10) / 10;
const show = (value: bigint | number | undefined) => (value === undefined ? "-" : value.toString());

/** The report as proto-JSON-like output (64-bit integers as strings, snake_case). */
export function reportJson(report: DryRunReport): Record<string, unknown> {
  return {
    name: report.name,
    release: report.release,
    height: report.height.toString(),
    applied_at: report.appliedAt.toString(),
    scheduled_plan:
      report.scheduledPlan === undefined
        ? null
        : {
            name: report.scheduledPlan.name,
            height: report.scheduledPlan.height.toString(),
            info: report.scheduledPlan.info,
          },
    store_upgrades: {
      added: report.storeUpgrades.added,
      renamed: report.storeUpgrades.renamed.map((r) => ({ old_key: r.oldKey, new_key: r.newKey })),
      deleted: report.storeUpgrades.deleted,
    },
    stores: report.stores.map((s) => ({
      name: s.name,
      keys_before: s.keysBefore ?? null,
      keys_after: s.keysAfter ?? null,
      renamed_from: s.renamedFrom ?? null,
    })),
    module_versions: report.moduleVersions.map((m) => ({
      name: m.name,
      before: m.before === undefined ? null : m.before.toString(),
      after: m.after === undefined ? null : m.after.toString(),
    })),
    protocol_version: {
      before: report.protocolVersion.before.toString(),
      after: report.protocolVersion.after.toString(),
    },
    app_hash_before: report.appHashBefore,
    app_hash_after: report.appHashAfter,
    stepped_migrations: report.steppedMigrations.map((m) => ({
      upgrade: m.upgrade,
      module: m.module,
      name: m.name,
      budget: m.budget,
      steps: m.steps.toString(),
      blocks: m.steps.toString(),
      finished_height: m.finishedHeight.toString(),
    })),
    duration_ms: {
      copy: ms(report.durations.copyMs),
      load: ms(report.durations.loadMs),
      upgrade: ms(report.durations.upgradeMs),
      commit: ms(report.durations.commitMs),
      stepped: ms(report.durations.steppedMs),
      total: ms(report.durations.totalMs),
    },
  };
}

/** The report for people. */
export function reportText(report: DryRunReport): string {
  const lines: string[] = [];
  lines.push(
    `dry run of upgrade "${report.name}" with release ${report.release.name} (${report.release.version}) on a copy of the state at height ${report.height}`,
  );
  lines.push(
    report.scheduledPlan === undefined
      ? `plan: none scheduled on chain; simulated as applied at height ${report.appliedAt}`
      : `plan: scheduled for height ${report.scheduledPlan.height}${report.scheduledPlan.info === "" ? "" : ` (info ${report.scheduledPlan.info})`}; applied at ${report.appliedAt}`,
  );
  const { added, renamed, deleted } = report.storeUpgrades;
  lines.push(
    `store upgrades: added [${added.join(", ")}], renamed [${renamed.map((r) => `${r.oldKey} -> ${r.newKey}`).join(", ")}], deleted [${deleted.join(", ")}]`,
  );
  lines.push("stores (keys before -> after):");
  const width = Math.max(...report.stores.map((s) => s.name.length), 4) + 2;
  for (const store of report.stores) {
    const note =
      store.renamedFrom !== undefined
        ? `  (renamed from ${store.renamedFrom})`
        : store.keysBefore === undefined
          ? "  (added)"
          : store.keysAfter === undefined
            ? "  (deleted)"
            : "";
    lines.push(`  ${store.name.padEnd(width)}${show(store.keysBefore)} -> ${show(store.keysAfter)}${note}`);
  }
  lines.push("module versions (before -> after):");
  const moduleWidth = Math.max(...report.moduleVersions.map((m) => m.name.length), 4) + 2;
  for (const module of report.moduleVersions) {
    const changed = module.before !== module.after ? "  *" : "";
    lines.push(`  ${module.name.padEnd(moduleWidth)}${show(module.before)} -> ${show(module.after)}${changed}`);
  }
  lines.push(`protocol version: ${report.protocolVersion.before} -> ${report.protocolVersion.after}`);
  lines.push(`app hash before: ${report.appHashBefore}`);
  lines.push(`app hash after:  ${report.appHashAfter}  (the upgrade alone, without the block's transactions)`);
  if (report.steppedMigrations.length > 0) {
    lines.push("stepped migrations (run to their end, one step a block after the upgrade's):");
    for (const m of report.steppedMigrations) {
      lines.push(
        `  ${m.module}/${m.name}: ${m.steps} blocks at ${m.budget} records a block, done at height ${m.finishedHeight}`,
      );
    }
  }
  const d = report.durations;
  lines.push(
    `took ${ms(d.totalMs)} ms (copy ${ms(d.copyMs)}, open with store loader ${ms(d.loadMs)}, handler and migrations ${ms(d.upgradeMs)}, commit ${ms(d.commitMs)})`,
  );
  return `${lines.join("\n")}\n`;
}
