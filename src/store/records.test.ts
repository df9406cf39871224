import assert from "node:assert/strict";
import { test } from "node:test";
import { ChangelogWriter, decodeChangelog, encodeChangelog } from "./records.ts";

test("ChangelogWriter writes encodeChangelog's bytes", () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  const superseded = [
    { key: bytes("a"), writeNo: 1 },
    { key: bytes("bb"), writeNo: 300 },
  ];
  const tombstones = [{ key: bytes("c"), writeNo: 2 ** 40 }];
  const orphans = [0, 2 ** 23 + 5, 2 ** 45];
  const w = new ChangelogWriter();
  for (const s of superseded) w.supersede(s.key, s.writeNo);
  for (const t of tombstones) w.tombstone(t.key, t.writeNo);
  assert.equal(w.isEmpty(orphans), false);
  const record = w.finish(orphans);
  assert.deepEqual(record, encodeChangelog({ superseded, tombstones, orphans }));
  assert.deepEqual(decodeChangelog(record), { superseded, tombstones, orphans });
  assert.equal(new ChangelogWriter().isEmpty([]), true);
});
