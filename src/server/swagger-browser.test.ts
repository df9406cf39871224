// The Swagger UI in a real headless Chromium: /swagger shows the UI (served locally) with the upgrade
// routes, "Try it out" on current_plan gets a 200 from the live gateway, and a screenshot is saved to
// test-output/swagger-ui.png. Skipped, with the reason printed, where Chromium is not installed.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { parseAppConfig } from "../config/app-config.ts";
import { type ChainFixture, openChainFixture, schedule } from "../testing/chain-fixture.ts";
import { type RunningServers, startServers } from "./servers.ts";

const CHROMIUM = "/usr/bin/chromium";
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (CI installs Debian's chromium package)`;
const outputDir = fileURLToPath(new URL("../../test-output/", import.meta.url));

let chain: ChainFixture;
let servers: RunningServers;

before(async () => {
  if (skip !== false) return;
  chain = await openChainFixture();
  chain.at(1n, schedule("v2", 100n));
  await chain.nextBlock();
  servers = await startServers({
    backend: chain.backend,
    hooks: chain.hooks,
    config: parseAppConfig('[api]\naddress = "tcp://127.0.0.1:0"\n[grpc]\nenable = false\n'),
  });
});

after(async () => {
  await servers?.stop();
  await chain?.close();
});

test("the Swagger UI lists the upgrade routes and runs Try it out on current_plan", { skip }, async () => {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage();
    const external: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(servers.rest!.url)) external.push(request.url());
    });
    await page.goto(`${servers.rest!.url}/swagger`);
    // Swagger UI builds the id from the tag and the operationId (dots escaped): match on its end.
    const operation = page.locator('[id$="-chain_upgrade_v1beta1_Query_CurrentPlan"]');
    await operation.waitFor({ timeout: 30_000 });
    for (const path of ["/chain/upgrade/v1beta1/current_plan", "/chain/upgrade/v1beta1/applied_plan/{name}"]) {
      assert.ok((await page.getByText(path, { exact: true }).count()) > 0, `${path} is not shown`);
    }
    await operation.locator(".opblock-summary").click();
    await operation.getByRole("button", { name: "Try it out" }).click();
    await operation.getByRole("button", { name: "Execute" }).click();
    const status = operation.locator(".live-responses-table tr.response .response-col_status").first();
    await status.waitFor({ timeout: 30_000 });
    assert.equal((await status.textContent())?.trim(), "200");
    const body = await operation.locator(".live-responses-table tr.response .microlight").first().textContent();
    assert.match(body ?? "", /"name": "v2"/);
    await mkdir(outputDir, { recursive: true });
    await page.screenshot({ path: `${outputDir}swagger-ui.png`, fullPage: true });
    assert.deepEqual(external, [], "the UI loaded something from outside the node");
  } finally {
    await browser.close();
  }
});
