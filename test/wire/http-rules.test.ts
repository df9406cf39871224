// Every query-style service method must carry a REST route under /chain/ (the gateway derives its
// routes from these rules); Msg services must carry none, be marked as Msg services, and name their signers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { getOption, hasOption } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { service as msgService, signer } from "../../src/gen/chain/msg/v1/msg_pb.js";
import { http } from "../../src/gen/google/api/annotations_pb.js";
import { loadGeneratedFiles } from "./generated-files.ts";

const genRoot = fileURLToPath(new URL("../../src/gen", import.meta.url));
const files = await loadGeneratedFiles(genRoot, ["chain"]);
const services = files.flatMap(({ file }) => [...nestedTypes(file)].filter((t) => t.kind === "service"));

test("every Query/Service method has a GET or POST route under /chain/", () => {
  const problems: string[] = [];
  let routes = 0;
  for (const service of services.filter((s) => s.name !== "Msg")) {
    for (const method of service.methods) {
      const name = `${service.typeName}/${method.name}`;
      if (!hasOption(method, http)) {
        problems.push(`${name}: no google.api.http rule`);
        continue;
      }
      const rule = getOption(method, http);
      const bindings = [rule, ...rule.additionalBindings];
      for (const binding of bindings) {
        const { pattern } = binding;
        if (pattern.case !== "get" && pattern.case !== "post")
          problems.push(`${name}: unexpected verb ${pattern.case}`);
        else if (!pattern.value.startsWith("/chain/"))
          problems.push(`${name}: path ${pattern.value} is not under /chain/`);
        else routes++;
        if (pattern.case === "post" && binding.body !== "*") problems.push(`${name}: POST without body "*"`);
      }
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(routes > 0, "no routes found at all");
});

test("Msg services are marked as such and have no REST routes", () => {
  const msgServices = services.filter((s) => s.name === "Msg");
  assert.ok(msgServices.length > 0);
  for (const service of msgServices) {
    assert.equal(getOption(service, msgService), true, `${service.typeName} lacks (chain.msg.v1.service)`);
    for (const method of service.methods) assert.ok(!hasOption(method, http), `${service.typeName}/${method.name}`);
  }
});

test("every Msg names signer fields that exist on it", () => {
  for (const service of services.filter((s) => s.name === "Msg")) {
    for (const { input } of service.methods) {
      const signers = getOption(input, signer);
      assert.ok(signers.length > 0, `${input.typeName} has no (chain.msg.v1.signer)`);
      for (const name of signers) {
        assert.ok(
          input.fields.some((f) => f.name === name),
          `${input.typeName} signer ${name} is not a field`,
        );
      }
    }
  }
});
