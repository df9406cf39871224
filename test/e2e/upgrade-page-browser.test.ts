// The upgrade page (GET /upgrade) in a real headless Chromium on a phone-sized window, against `chaind dev` as a
// real process (the dev chain turns the page on and names it in its printout): with no plan it says so; once
// governance schedules "v2" it shows the name, the height and a countdown that goes down as blocks come; while the
// node is halted for the upgrade every section says its query failed; after the v2 release takes over it lists v2
// among the applied plans. Every refresh stays within the page's request bound and nothing is loaded from outside
// the node. Screenshots are saved in the test's temp dir and copied to test-output/ (the CI artifact folder).
// Skipped, with the reason printed, where Chromium is not installed.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { homePaths, setTomlValues } from "../../src/config/index.ts";
import { type DevHome, prepareDevHome } from "../../src/node/dev-chain.ts";
import { UPGRADE_PAGE_MAX_REQUESTS_PER_ROUND } from "../../src/server/upgrade-page.ts";
import { scheduleUpgradeByVote } from "../../src/testing/governance.ts";
import { UPGRADE_EXIT_CODES } from "../../src/x/upgrade/errors.ts";
import { freePort } from "../support/abci/processes.ts";
import {
  bannerEndpoints,
  type ChaindProcess,
  killAllChaind,
  latestHeight,
  pollUntil,
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../support/node/chaind.ts";

const CHROMIUM = "/usr/bin/chromium";
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (CI installs Debian's chromium package)`;
if (skip !== false) console.error(`# SKIPPED upgrade-page-browser: ${skip}`);
const artifactDir = fileURLToPath(new URL("../../test-output/", import.meta.url));
// Generous: a busy 2-core machine runs many nodes at once; every wait is for a condition, never a time.
const WAIT_MS = 120_000;

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let userHome: string;
let browser: Browser | undefined;

before(async () => {
  if (skip !== false) return;
  dir = await tempDir("chaind-upgrade-page-");
  userHome = join(dir.path, "user");
  dev = await prepareDevHome({ home: join(dir.path, "home") });
  // 500 ms blocks: the countdown moves quickly and the plan height (below) is reached within a minute.
  const configToml = homePaths(dev.home).configToml;
  await writeFile(
    configToml,
    setTomlValues(await readFile(configToml, "utf8"), { "consensus.timeout_commit": "500ms" }),
  );
});

after(async () => {
  await browser?.close();
  await killAllChaind();
  await dir?.remove();
});

/** Saves a full-page screenshot in the temp dir and copies it to the artifact folder. */
async function screenshot(page: Page, name: string): Promise<void> {
  const path = join(dir.path, name);
  await page.screenshot({ path, fullPage: true });
  await mkdir(artifactDir, { recursive: true });
  await copyFile(path, join(artifactDir, name));
}

test("the upgrade page shows no plan, then the scheduled plan counting down, then the applied plan", {
  skip,
}, async () => {
  // The REST port is fixed for the whole test (picked now): the page keeps polling the same origin across the
  // restart into the v2 release, as an operator's open tab would.
  const restPort = await freePort();
  const flags = [
    "--rpc.laddr",
    "tcp://127.0.0.1:0",
    "--api.address",
    `tcp://127.0.0.1:${restPort}`,
    "--grpc.address",
    "127.0.0.1:0",
  ];
  const startDev = (env?: Record<string, string>): ChaindProcess =>
    spawnChaind(["dev", "--home", dev.home, ...flags], { userHome, env });

  let node = startDev();
  const { rpc, rest } = await bannerEndpoints(node);
  const pageUrl = /^ {2}Upgrade page +(\S+)$/m.exec(node.stdout)?.[1];
  assert.equal(pageUrl, `${rest}/upgrade`, node.stdout);
  await waitForHeight(rpc, 1n);

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const external: string[] = [];
  let queries = 0;
  page.on("request", (request) => {
    const url = request.url();
    if (!url.startsWith(`${rest}/`)) external.push(url);
    else if (!url.startsWith(`${rest}/upgrade`)) queries++;
  });
  await page.goto(pageUrl as string);

  // No plan yet: the page says so; readiness and migrations are not served by this release and say that instead.
  await page.locator("#no-plan").waitFor({ timeout: WAIT_MS });
  assert.equal((await page.locator("#no-plan").textContent())?.trim(), "No upgrade is scheduled.");
  assert.match((await page.locator("#node").textContent()) ?? "", /height/);
  // Phone-sized: nothing wider than the window.
  const width = Number(await page.evaluate("document.documentElement.scrollWidth"));
  assert.ok(width <= 390, `the page is ${width} px wide on a 390 px window`);

  const validator = dev.keys.find((key) => key.name === "validator")?.address as string;
  // 80 blocks of at least 500 ms: the proposal (20 s voting period) passes well before the plan's height.
  const upgradeHeight = (await latestHeight(rpc)) + 80n;
  await scheduleUpgradeByVote({
    rpc,
    rest: rest as string,
    home: dev.home,
    chainId: dev.chainId,
    keyName: "validator",
    address: validator,
    name: "v2",
    height: upgradeHeight,
    info: '{"binaries":{"linux/amd64":"https://example.invalid/chaind-v2.tar.gz?checksum=sha256:00ff"}}',
  });

  // Scheduled: name, height, and a countdown that goes down as blocks come.
  await page.locator("#plan-name").waitFor({ timeout: WAIT_MS });
  assert.equal(await page.locator("#plan-name").textContent(), "v2");
  assert.equal(await page.locator("#plan-height").textContent(), upgradeHeight.toString());
  assert.match((await page.locator("#plan").textContent()) ?? "", /sha256:00ff/);
  const first = Number(await page.locator("#blocks-to-go").textContent());
  assert.ok(first > 0 && first < 80, `blocks to go: ${first}`);
  await pollUntil(async () => (Number(await page.locator("#blocks-to-go").textContent()) < first ? true : undefined), {
    timeoutMs: WAIT_MS,
    what: `the countdown to go below ${first}`,
  });
  await page.locator("#plan", { hasText: /ETAabout .* s a block/ }).waitFor({ timeout: WAIT_MS });
  await screenshot(page, "upgrade-page-scheduled.png");

  // The v1 node halts at the plan's height; the open page says each query failed, in words.
  const halted = await node.exited;
  assert.equal(halted.code, UPGRADE_EXIT_CODES.needed, halted.stderr.slice(-3000));
  await page
    .locator("#plan", { hasText: "current_plan failed: the node did not answer" })
    .waitFor({ timeout: WAIT_MS });
  assert.match((await page.locator("#status").textContent()) ?? "", /the node is not answering/);

  // The v2 release applies the upgrade and carries on: the page lists v2 as applied at the plan's height.
  node = startDev({ CHAIND_RELEASE: "v2" });
  const resumed = await bannerEndpoints(node);
  assert.equal(resumed.rest, rest);
  await waitForHeight(resumed.rpc, upgradeHeight + 1n);
  await page.locator("#applied").waitFor({ timeout: WAIT_MS });
  await page.locator("#no-plan").waitFor({ timeout: WAIT_MS });
  const applied = (await page.locator("#applied").textContent()) ?? "";
  assert.match(applied, new RegExp(`v2\\s*${upgradeHeight}`));
  await screenshot(page, "upgrade-page-applied.png");

  // The load bound: never more than one round of queries a refresh, each within the bound.
  const rounds = Number(await page.locator("body").getAttribute("data-round"));
  assert.ok(rounds > 0);
  assert.ok(
    queries <= rounds * UPGRADE_PAGE_MAX_REQUESTS_PER_ROUND,
    `${queries} queries in ${rounds} refreshes (bound ${UPGRADE_PAGE_MAX_REQUESTS_PER_ROUND} a refresh)`,
  );
  assert.deepEqual(external, [], "the page loaded something from outside the node");
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0);
});
