// The little chainvisor asks the running node over its REST API: the current upgrade plan, and (from the
// x-chain-block-height header every answer carries) the latest committed height. chainvisor works without it.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import type { VisorConfig } from "./config.ts";
import { errorCode, errorMessage, VisorError } from "./errors.ts";
import type { UpgradePlan } from "./upgrade-info.ts";

/** Where the node's REST API is, or why chainvisor will not ask it. */
export type ApiEndpoint = { url: string; source: string; warning?: string } | { disabled: string };

/** The node's default REST listen address (docs/CONTRACT.md §1). */
export const DEFAULT_API_ADDRESS = "tcp://localhost:1317";
/** REST path of the upgrade module's CurrentPlan query. */
export const CURRENT_PLAN_PATH = "/chain/upgrade/v1beta1/current_plan";

/**
 * The REST endpoint: CHAINVISOR_API_URL if set, else the `--api.address` the node is started with (`nodeArgs`, which
 * override app.toml for that run), else `[api] address` of `<home>/config/app.toml` (default
 * `tcp://localhost:1317`), or disabled when app.toml says `[api] enable = false`.
 */
export async function resolveApiEndpoint(
  config: Pick<VisorConfig, "home" | "apiUrl">,
  nodeArgs: readonly string[] = [],
): Promise<ApiEndpoint> {
  if (config.apiUrl !== undefined) return { url: config.apiUrl, source: "CHAINVISOR_API_URL" };
  const flag = apiAddressFlag(nodeArgs);
  // A port 0 is picked by the node at start: not an address to poll (app.toml or the default is no better).
  if (flag !== undefined && !/:0$/.test(flag)) return { url: addressToUrl(flag), source: "the node's --api.address" };
  const appToml = join(config.home, "config", "app.toml");
  let text: string;
  try {
    text = await readFile(appToml, "utf8");
  } catch (error) {
    const url = addressToUrl(DEFAULT_API_ADDRESS);
    if (errorCode(error) === "ENOENT") return { url, source: "default" };
    return { url, source: "default", warning: `cannot read ${appToml}: ${errorMessage(error)}` };
  }
  let api: Record<string, unknown> = {};
  try {
    const section = parseToml(text).api;
    if (typeof section === "object" && section !== null && !Array.isArray(section))
      api = section as Record<string, unknown>;
  } catch (error) {
    return {
      url: addressToUrl(DEFAULT_API_ADDRESS),
      source: "default",
      warning: `cannot parse ${appToml}: ${errorMessage(error)}`,
    };
  }
  if (api.enable === false) return { disabled: `the REST API is disabled in ${appToml} ([api] enable = false)` };
  const address = typeof api.address === "string" && api.address !== "" ? api.address : DEFAULT_API_ADDRESS;
  return { url: addressToUrl(address), source: appToml };
}

/** The value of `--api.address X` / `--api.address=X` among the node's arguments (the last one wins, as for the node). */
export function apiAddressFlag(args: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i].startsWith("--api.address=")) value = args[i].slice("--api.address=".length);
    else if (args[i] === "--api.address" && i + 1 < args.length) value = args[++i];
  }
  return value === "" ? undefined : value;
}

/**
 * `tcp://0.0.0.0:1317` → `http://127.0.0.1:1317`: the listen address turned into one we can connect to.
 */
export function addressToUrl(address: string): string {
  const withScheme = /^[a-z]+:\/\//i.test(address) ? address : `tcp://${address}`;
  const url = new URL(withScheme.replace(/^tcp:/i, "http:"));
  if (url.hostname === "0.0.0.0") url.hostname = "127.0.0.1";
  if (url.hostname === "[::]") url.hostname = "[::1]";
  return url.href.replace(/\/+$/, "");
}

/** The node's answer to GET current_plan. */
export interface NodePlanAnswer {
  plan: UpgradePlan | null;
  /** Latest committed height, from the x-chain-block-height header (absent if the node did not send it). */
  height: bigint | undefined;
}

/**
 * GET `<api>/chain/upgrade/v1beta1/current_plan`.
 * @example const { plan, height } = await fetchCurrentPlan("http://localhost:1317")
 */
export async function fetchCurrentPlan(apiUrl: string, timeoutMs = 5_000): Promise<NodePlanAnswer> {
  const url = apiUrl + CURRENT_PLAN_PATH;
  let response: Response;
  let body: unknown;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: "application/json" } });
    const text = await response.text();
    if (!response.ok) throw new Error(`answered ${response.status} ${response.statusText}: ${text.slice(0, 200)}`);
    body = JSON.parse(text);
  } catch (error) {
    const cause = error instanceof Error && error.cause !== undefined ? `: ${errorMessage(error.cause)}` : "";
    throw new VisorError(`GET ${url} failed: ${errorMessage(error)}${cause}`, { cause: error });
  }
  const headerHeight = response.headers.get("x-chain-block-height");
  const height = headerHeight !== null && /^[0-9]+$/.test(headerHeight) ? BigInt(headerHeight) : undefined;
  const plan = typeof body === "object" && body !== null ? (body as Record<string, unknown>).plan : undefined;
  if (plan === null) return { plan: null, height };
  const record = typeof plan === "object" && plan !== null ? (plan as Record<string, unknown>) : undefined;
  if (
    record === undefined ||
    typeof record.name !== "string" ||
    typeof record.height !== "string" ||
    !/^[0-9]+$/.test(record.height)
  ) {
    throw new VisorError(`GET ${url} gave an unexpected answer`, {
      details: ['expected {"plan":null} or {"plan":{"name":"...","height":"<decimal>","info":"..."}}'],
    });
  }
  const info = typeof record.info === "string" ? record.info : "";
  return { plan: { name: record.name, height: BigInt(record.height), info }, height };
}

/** REST path of the upgrade module's UpgradeReadiness query. */
export const READINESS_PATH = "/chain/upgrade/v1beta1/readiness";

/** What chainvisor reads of the node's readiness answer. */
export interface NodeReadiness {
  /** The scheduled plan's name, or null. */
  plan: string | null;
  readyValidators: number;
  validators: number;
  /** LegacyDec text, e.g. `0.750000000000000000`. */
  readyFraction: string;
}

/**
 * The network's readiness as the node reports it, or undefined when it cannot be read (a node without the query,
 * one starting or stopping): only logged information, so no error is worth reporting.
 */
export async function fetchReadiness(apiUrl: string, timeoutMs = 5_000): Promise<NodeReadiness | undefined> {
  try {
    const response = await fetch(apiUrl + READINESS_PATH, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: "application/json" },
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as Record<string, unknown>;
    const plan = body.plan as Record<string, unknown> | null | undefined;
    const validators = Array.isArray(body.validators) ? (body.validators as Record<string, unknown>[]) : undefined;
    if (validators === undefined || typeof body.ready_fraction !== "string") return undefined;
    return {
      plan: plan !== null && typeof plan === "object" && typeof plan.name === "string" ? plan.name : null,
      readyValidators: validators.filter((v) => v.ready === true).length,
      validators: validators.length,
      readyFraction: body.ready_fraction,
    };
  } catch {
    return undefined;
  }
}
