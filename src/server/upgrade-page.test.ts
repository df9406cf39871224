// The upgrade page's route (src/server/upgrade-page.ts) through the real servers on a port picked at run time:
// served as HTML when app.toml api.upgrade-page = true, 404 with the key named when it is false or absent (the
// default `chaind init` writes), GET/HEAD only, a bounded self-contained document that reads only routes the
// gateway serves.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { parseAppConfig } from "../config/app-config.ts";
import { type ChainFixture, openChainFixture } from "../testing/chain-fixture.ts";
import { type RunningServers, startServers } from "./servers.ts";
import { UPGRADE_PAGE_HTML } from "./upgrade-page.ts";

// The page must stay small: it is sent on every open and to phones.
const MAX_PAGE_BYTES = 24 * 1024;

let chain: ChainFixture;
let on: RunningServers;
let off: RunningServers;
let absent: RunningServers;

const config = (api: string) =>
  parseAppConfig(`[api]\naddress = "tcp://127.0.0.1:0"\n${api}\n[grpc]\nenable = false\n`);

before(async () => {
  chain = await openChainFixture();
  await chain.nextBlock();
  const start = (api: string) => startServers({ backend: chain.backend, hooks: chain.hooks, config: config(api) });
  on = await start("upgrade-page = true");
  off = await start("upgrade-page = false");
  absent = await start("");
});

after(async () => {
  await on?.stop();
  await off?.stop();
  await absent?.stop();
  await chain?.close();
});

test("GET /upgrade serves the page as HTML when api.upgrade-page = true", async () => {
  for (const path of ["/upgrade", "/upgrade/"]) {
    const response = await fetch(`${on.rest!.url}${path}`);
    assert.equal(response.status, 200, path);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    const body = Buffer.from(await response.arrayBuffer());
    assert.deepEqual(body, UPGRADE_PAGE_HTML);
    assert.match(body.toString(), /<title>chaind: upgrade status<\/title>/);
  }
  const head = await fetch(`${on.rest!.url}/upgrade`, { method: "HEAD" });
  assert.equal(head.status, 200);
  const post = await fetch(`${on.rest!.url}/upgrade`, { method: "POST" });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get("allow"), "GET, HEAD");
});

test("/upgrade is 404 naming the key when api.upgrade-page is false or absent", async () => {
  for (const servers of [off, absent]) {
    const response = await fetch(`${servers.rest!.url}/upgrade`);
    assert.equal(response.status, 404);
    const body = (await response.json()) as { code: number; message: string };
    assert.equal(body.code, 5);
    assert.match(body.message, /api\.upgrade-page = false/);
  }
});

test("the page is bounded in size and loads nothing from outside the node", () => {
  assert.ok(UPGRADE_PAGE_HTML.length <= MAX_PAGE_BYTES, `the page is ${UPGRADE_PAGE_HTML.length} bytes`);
  const text = UPGRADE_PAGE_HTML.toString();
  // The one link is an empty inline icon (data:), so browsers do not ask the node for /favicon.ico.
  assert.doesNotMatch(text, /<(script|link|img|iframe)[^>]+(src|href)="(?!data:)/i, "no external asset");
  assert.doesNotMatch(text, /https?:\/\//, "no absolute URL");
});

test("every query the page reads is a route the gateway serves (the optional ones may be absent)", async () => {
  const text = UPGRADE_PAGE_HTML.toString();
  const upgrade = [...text.matchAll(/U \+ "([a-z_]+)/g)].map((m) => `/chain/upgrade/v1beta1/${m[1]}`);
  const others = [...text.matchAll(/get\("(\/chain\/[a-z0-9_/]+)"\)/g)].map((m) => m[1]);
  const optional = new Set(["readiness", "migrations", "params"].map((n) => `/chain/upgrade/v1beta1/${n}`));
  const required = [...new Set([...upgrade, ...others])].filter((path) => !optional.has(path));
  assert.deepEqual(required.sort(), [
    "/chain/base/tendermint/v1beta1/blocks/latest",
    "/chain/base/tendermint/v1beta1/node_info",
    "/chain/upgrade/v1beta1/applied_plan",
    "/chain/upgrade/v1beta1/current_plan",
    "/chain/upgrade/v1beta1/module_versions",
  ]);
  for (const path of required) {
    const url = path.endsWith("applied_plan") ? `${path}/v0` : path;
    const response = await fetch(`${on.rest!.url}${url}`);
    assert.equal(response.status, 200, `${url}: ${await response.text()}`);
  }
});
