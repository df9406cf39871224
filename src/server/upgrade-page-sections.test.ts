// The upgrade page's reading of answers a dev node does not give on demand, in a real headless Chromium: the readiness
// query of docs/CONTRACT.md §13 with several validators, its stepped-migrations query (which this release does not
// serve yet), a time-based plan whose Info is a URL, and a query failing with an error body. A plain HTTP server on a
// port picked at run time serves the page's bytes at /upgrade and, for each query, the JSON that docs/CONTRACT.md §13
// and docs/CONTRACT.md §7 define — the contract is what is under test here, not a node. Skipped, with the reason
// printed, where Chromium is missing.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { UPGRADE_PAGE_HTML } from "./upgrade-page.ts";

const CHROMIUM = "/usr/bin/chromium";
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (CI installs Debian's chromium package)`;
if (skip !== false) console.error(`# SKIPPED upgrade-page-sections: ${skip}`);

const U = "/chain/upgrade/v1beta1/";
const ANSWERS: Record<string, { status: number; body: unknown }> = {
  [`${U}current_plan`]: {
    status: 200,
    body: {
      plan: {
        name: "v3",
        time: "2030-01-02T03:04:05Z",
        height: "0",
        info: "https://example.invalid/v3.json?checksum=sha256:abcd",
        upgraded_client_state: null,
      },
    },
  },
  "/chain/base/tendermint/v1beta1/blocks/latest": {
    status: 200,
    body: { sdk_block: { header: { height: "50", time: "2029-12-31T00:00:00Z" } } },
  },
  "/chain/base/tendermint/v1beta1/node_info": {
    status: 200,
    body: {
      default_node_info: { network: "chaind-test", moniker: "m1", protocol_version: { app: "0" } },
      application_version: { name: "chaind", app_name: "chaind", version: "3.0.0" },
    },
  },
  [`${U}module_versions`]: { status: 500, body: { code: 13, message: "store unavailable", details: [] } },
  [`${U}readiness`]: {
    status: 200,
    body: {
      plan: { name: "v3" },
      height: "49",
      ready_power: "60",
      total_power: "100",
      ready_fraction: "0.600000000000000000",
      validators: [
        { operator_address: "chainvaloper1aaa", power: "60", ready: true, last_signal_height: "48" },
        { operator_address: "chainvaloper1bbb", power: "40", ready: false, last_signal_height: "0" },
      ],
    },
  },
  [`${U}params`]: {
    status: 200,
    body: {
      params: {
        readiness_threshold: "0.667000000000000000",
        readiness_postpone_blocks: "100",
        readiness_max_postponements: "0",
      },
    },
  },
  [`${U}migrations`]: {
    status: 200,
    body: {
      migrations: [
        {
          upgrade: "v3",
          module: "bank",
          name: "balances-v3",
          started_height: "40",
          finished_height: "0",
          progress: "3/10",
          steps: "3",
        },
      ],
    },
  },
};

let server: Server;
let base: string;
const asked: string[] = [];

before(async () => {
  if (skip !== false) return;
  server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    asked.push(path);
    if (path === "/upgrade") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(UPGRADE_PAGE_HTML);
      return;
    }
    const answer = ANSWERS[path] ?? { status: 404, body: { code: 5, message: `unknown path ${path}`, details: [] } };
    response.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  if (server !== undefined) await new Promise((resolve) => server.close(resolve));
});

test("readiness, migrations, a time-based plan with an Info URL and a failing query read as docs/CONTRACT.md §13 says", {
  skip,
}, async () => {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${base}/upgrade`);
    await page.locator("#plan-name").waitFor({ timeout: 30_000 });
    const plan = (await page.locator("#plan").textContent()) ?? "";
    assert.match(plan, /2030-01-02T03:04:05Z/);
    assert.match(
      plan,
      /a document at https:\/\/example\.invalid\/v3\.json\?checksum=sha256:abcd \(chainvisor fetches it\)/,
    );
    assert.equal(await page.locator("#blocks-to-go").count(), 0, "a time-based plan has no block countdown");

    await page.locator("#readiness table").waitFor({ timeout: 30_000 });
    const readiness = (await page.locator("#readiness").textContent()) ?? "";
    assert.match(readiness, /60\.0% of the voting power is ready \(60 of 100\); the threshold is 66\.7%/);
    assert.match(readiness, /chainvaloper1aaa60yes48/);
    assert.match(readiness, /chainvaloper1bbb40no0/);
    assert.equal(await page.locator("#readiness .bar i").getAttribute("style"), "width:60%");

    assert.match(
      (await page.locator("#migrations").textContent()) ?? "",
      /v3bankbalances-v33\/10 \(3 steps\)40 → running/,
    );
    assert.match(
      (await page.locator("#history").textContent()) ?? "",
      /module_versions failed: HTTP 500: store unavailable/,
    );
    assert.match((await page.locator("#node").textContent()) ?? "", /chaind 3\.0\.0/);
    assert.ok(
      asked.every((path) => path === "/upgrade" || path.startsWith("/chain/")),
      asked.join(", "),
    );
  } finally {
    await browser.close();
  }
});
