// `chainvisor status`: what runs, what is staged, what the node's files and API say. Read-only: it never upgrades.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { VisorConfig } from "../config.ts";
import { errorCode, errorMessage } from "../errors.ts";
import { hasBinary, readCurrentRelease, upgradeDirName, visorLayout } from "../layout.ts";
import { fetchCurrentPlan, resolveApiEndpoint } from "../node-api.ts";
import { describePlan, readUpgradeInfo, type UpgradePlan } from "../upgrade-info.ts";

/** The JSON shape of a plan in status output. */
export interface PlanJson {
  name: string;
  height: string;
  info: string;
}

/** Everything `status` reports. */
export interface VisorStatus {
  current: { release: string; binary: string } | { error: string };
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
    current = { release: release.label, binary: release.binary };
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
  return { current, upgrades, upgrade_info: upgradeInfo, node };
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
  }
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
