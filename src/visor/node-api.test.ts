// Where chainvisor asks the node over REST: CHAINVISOR_API_URL, else the --api.address the node is started with,
// else app.toml's [api] address, else the default; never another node's port because a flag was not looked at.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { apiAddressFlag, resolveApiEndpoint } from "./node-api.ts";

let home: string;

/** The URL of an endpoint that is not disabled. */
const urlOf = (endpoint: Awaited<ReturnType<typeof resolveApiEndpoint>>) =>
  "url" in endpoint ? endpoint.url : endpoint.disabled;

before(async () => {
  home = await mkdtemp(join(tmpdir(), "chainvisor-node-api-"));
  await mkdir(join(home, "config"));
  await writeFile(join(home, "config", "app.toml"), '[api]\nenable = true\naddress = "tcp://0.0.0.0:21317"\n');
});

after(() => rm(home, { recursive: true, force: true }));

test("the REST endpoint: the env, then the node's --api.address, then app.toml", async () => {
  assert.deepEqual(await resolveApiEndpoint({ home, apiUrl: undefined }), {
    url: "http://127.0.0.1:21317",
    source: join(home, "config", "app.toml"),
  });
  const fromFlag = await resolveApiEndpoint({ home, apiUrl: undefined }, [
    "start",
    "--api.address",
    "tcp://127.0.0.1:31317",
  ]);
  assert.equal(urlOf(fromFlag), "http://127.0.0.1:31317");
  const fromEquals = await resolveApiEndpoint({ home, apiUrl: undefined }, [
    "start",
    "--api.address=tcp://0.0.0.0:41317",
  ]);
  assert.equal(urlOf(fromEquals), "http://127.0.0.1:41317");
  // A port picked at start is unknown ahead: app.toml's address is used.
  const picked = await resolveApiEndpoint({ home, apiUrl: undefined }, ["start", "--api.address", "tcp://127.0.0.1:0"]);
  assert.equal(urlOf(picked), "http://127.0.0.1:21317");
  const env = await resolveApiEndpoint({ home, apiUrl: "http://10.0.0.1:1317" }, [
    "--api.address",
    "tcp://127.0.0.1:31317",
  ]);
  assert.equal(urlOf(env), "http://10.0.0.1:1317");
});

test("--api.address among the node's arguments: both spellings, the last wins, none or empty is none", () => {
  assert.equal(apiAddressFlag(["start", "--api.address", "a:1", "--api.address=b:2"]), "b:2");
  assert.equal(apiAddressFlag(["start", "--api.address"]), undefined);
  assert.equal(apiAddressFlag(["start", "--api.address="]), undefined);
  assert.equal(apiAddressFlag(["start", "--grpc.address", "x:1"]), undefined);
});
