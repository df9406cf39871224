// `chainvisor status`: what runs, what is staged, what the node's files and API say. Read-only: it never upgrades.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { VisorConfig } from "../config.ts";
import { errorCode, errorMessage } from "../errors.ts";
import { formatGoDuration } from "../go-duration.ts";
import { hasBinary, readCurrentRelease, upgradeDirName, visorLayout } from "../layout.ts";
import { fetchCurrentPlan, resolveApiEndpoint } from "../node-api.ts";
import { type InPlaceMark, readInPlaceMark } from "../switch-ahead.ts";
import { describePlan, readUpgradeInfo, type UpgradePlan } from "../upgrade-info.ts";

/** The JSON shape of a plan in status output. */
export interface PlanJson {
  name: string;
  height: string;
  info: string;
}

/** Everything `status` reports. */
export interface VisorStatus {
  /**
   * `switched_ahead`: the current release runs in the in-place mode because chainvisor restarted the node on it
   * ahead of the plan's height (DAEMON_SWITCH_AHEAD), as its in-place mark records; null when it does not.
   */
  current:
    | { release: string; binary: string; switched_ahead: InPlaceMark | null | { error: string } }
    | { error: string };
  /** DAEMON_SWITCH_AHEAD and its window and guard, as this chainvisor reads them. */
  switch_ahead: { enabled: boolean; window: string; guard: string };
  upgrades: { name: string; dir: string; ready: boolean }[];
  upgrade_info: PlanJson | null | { error: string };
  node: {
    api: string | null;
    plan: (PlanJson & { staged: boolean }) | null;
    height: string | null;
    error: string | null;
  };
}

/**
 * Gathers the status; failures of any part are reported in that part, never thrown.
 */
export async function collectStatus(config: VisorConfig): Promise<VisorStatus> {
  const layout = visorLayout(config.home, config.name);
  let current: VisorStatus["current"];
  try {
    const release = await readCurrentRelease(layout, false);
    let switchedAhead: InPlaceMark | null | { error: string };
    try {
      switchedAhead = (await readInPlaceMark(release.dir)) ?? null;
    } catch (error) {
      switchedAhead = { error: errorMessage(error) };
    }
    current = { release: release.label, binary: release.binary, switched_ahead: switchedAhead };
  } catch (error) {
    current = { error: errorMessage(error) };
  }

  const upgrades: VisorStatus["upgrades"] = [];
  try {
    for (const entry of (await readdir(layout.upgradesDir, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue; // hidden: downloads in progress
      const dir = join(layout.upgradesDir, entry.name);
      upgrades.push({ name: entry.name, dir, ready: await hasBinary(layout, dir) });
    }
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
  }

  let upgradeInfo: VisorStatus["upgrade_info"];
  try {
    const plan = await readUpgradeInfo(layout.upgradeInfoFile);
    upgradeInfo = plan === undefined ? null : planJson(plan);
  } catch (error) {
    upgradeInfo = { error: errorMessage(error) };
  }

  const node: VisorStatus["node"] = { api: null, plan: null, height: null, error: null };
  const endpoint = await resolveApiEndpoint(config);
  if ("disabled" in endpoint) node.error = endpoint.disabled;
  else {
    node.api = endpoint.url;
    try {
      const answer = await fetchCurrentPlan(endpoint.url, 3_000);
      node.height = answer.height === undefined ? null : String(answer.height);
      if (answer.plan !== null) {
        let staged = false;
        try {
          staged = await hasBinary(layout, join(layout.upgradesDir, upgradeDirName(answer.plan.name)));
        } catch {
          // a name that cannot be a directory cannot be staged
        }
        node.plan = { ...planJson(answer.plan), staged };
      }
    } catch (error) {
      node.error = errorMessage(error);
    }
  }
  const switchAhead = {
    enabled: config.switchAhead,
    window: formatGoDuration(config.switchAheadWindowMs),
    guard: config.switchAheadGuard.toString(),
  };
  return { current, switch_ahead: switchAhead, upgrades, upgrade_info: upgradeInfo, node };
}

function planJson(plan: UpgradePlan): PlanJson {
  return { name: plan.name, height: String(plan.height), info: plan.info };
}

/** The human-readable form of {@link collectStatus}'s result. */
export function formatStatus(status: VisorStatus): string {
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`${`${label}:`.padEnd(20)}${value}`);
  if ("error" in status.current) row("current release", `unknown: ${status.current.error}`);
  else {
    row("current release", status.current.release);
    row("current binary", status.current.binary);
    const mark = status.current.switched_ahead;
    if (mark !== null) {
      row(
        "switched ahead",
        "error" in mark
          ? `unknown: ${mark.error}`
          : `for upgrade ${mark.plan} at height ${mark.plan_height}${mark.switched_at_height === undefined ? "" : `, restarted at height ${mark.switched_at_height}`} (the in-place mode)`,
      );
    }
  }
  const ahead = status.switch_ahead;
  row(
    "switch ahead",
    ahead.enabled ? `on (window ${ahead.window}, guard ${ahead.guard} blocks)` : "off (DAEMON_SWITCH_AHEAD)",
  );
  row(
    "upgrades installed",
    status.upgrades.length === 0
      ? "none"
      : status.upgrades.map((u) => `${u.name}${u.ready ? "" : " (no executable)"}`).join(", "),
  );
  const info = status.upgrade_info;
  row(
    "upgrade-info.json",
    info === null
      ? "none"
      : "error" in info
        ? `unreadable: ${info.error}`
        : describePlan({ ...info, height: BigInt(info.height) }),
  );
  if (status.node.api === null) row("node plan", `not asked: ${status.node.error}`);
  else if (status.node.error !== null) row("node plan", `unavailable from ${status.node.api}: ${status.node.error}`);
  else {
    const plan = status.node.plan;
    row(
      "node plan",
      plan === null
        ? "none scheduled"
        : `${describePlan({ ...plan, height: BigInt(plan.height) })}, ${plan.staged ? "staged" : "not staged yet"}`,
    );
    row("node height", status.node.height ?? "unknown");
  }
  return `${lines.join("\n")}\n`;
}
