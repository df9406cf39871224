// The rehearsal's report as JSON (`-o json`: the dry run's fields, then the rehearsal's own; every field is
// documented in docs/UPGRADING.md "Rehearsing an upgrade") and as text for people.
import type { DryRunReport } from "../../node/dry-run.ts";
import type { RehearsalReport } from "../../node/rehearse/rehearse.ts";
import { reportJson, reportText } from "./dry-run-report.ts";

const ms = (value: number) => Math.round(value * 10) / 10;

function asDryRun(report: RehearsalReport): DryRunReport {
  const d = report.durations;
  return {
    ...report,
    durations: {
      copyMs: d.prepareMs,
      loadMs: d.loadMs,
      upgradeMs: d.handlerMs,
      commitMs: d.commitMs,
      steppedMs: d.steppedMs,
      totalMs: d.totalMs,
    },
  };
}

/** The report as JSON (64-bit integers as strings, snake_case), a superset of `upgrade dry-run -o json`. */
export function rehearsalJson(report: RehearsalReport): Record<string, unknown> {
  const d = report.durations;
  const determinism = report.determinism;
  return {
    ...reportJson(asDryRun(report)),
    passed: report.passed,
    failures: report.failures,
    source: { home: report.source.home, snapshot: report.source.snapshot ?? null },
    checks: report.checks.map((c) => ({
      name: c.name,
      kind: c.kind,
      phase: c.phase,
      passed: c.passed,
      error: c.error ?? null,
      ms: ms(c.ms),
    })),
    determinism: {
      ran: determinism.ran,
      equal: determinism.equal,
      first:
        determinism.first === undefined
          ? null
          : { time_zone: determinism.first.timeZone, locale: determinism.first.locale },
      second:
        determinism.second === undefined
          ? null
          : {
              time_zone: determinism.second.timeZone,
              locale: determinism.second.locale,
              clock_offset_ms: determinism.second.clockOffsetMs,
              random_seed: determinism.second.randomSeed,
            },
      app_hash_second: determinism.appHashSecond ?? null,
      difference:
        determinism.difference === undefined
          ? null
          : {
              store: determinism.difference.store,
              key: determinism.difference.key ?? null,
              key_text: determinism.difference.keyText ?? null,
              first: determinism.difference.first ?? null,
              second: determinism.difference.second ?? null,
            },
      error: determinism.error ?? null,
    },
    follow:
      report.follow === undefined
        ? null
        : {
            requested: report.follow.requested,
            blocks: report.follow.blocks.map((b) => ({
              height: b.height.toString(),
              txs: b.txs,
              succeeded: b.succeeded,
              failed_as_on_source: b.failedAsOnSource,
              broken: b.broken,
              gas_used: b.gasUsed.toString(),
              source_gas_used: b.sourceGasUsed.toString(),
            })),
          },
    duration_ms: {
      prepare: ms(d.prepareMs),
      load: ms(d.loadMs),
      handler: ms(d.handlerMs),
      migrations: d.migrations.map((m) => ({
        module: m.module,
        from: m.from.toString(),
        to: m.to.toString(),
        ms: ms(m.ms),
      })),
      block: ms(d.blockMs),
      commit: ms(d.commitMs),
      second_run: ms(d.secondRunMs),
      follow: ms(d.followMs),
      stepped: ms(d.steppedMs),
      checks: ms(d.checksMs),
      total: ms(d.totalMs),
      pause_estimate: ms(d.pauseEstimateMs),
    },
    peak_rss_bytes: report.peakRssBytes,
  };
}

/** The report for people: the dry run's lines, then checks, determinism, follow, times and the verdict. */
export function rehearsalText(report: RehearsalReport): string {
  const lines = reportText(asDryRun(report))
    .replace(/^dry run of upgrade/, "rehearsal of upgrade")
    .trimEnd()
    .split("\n")
    .filter((line) => !line.startsWith("took "))
    .map((line) =>
      line.replace(
        "(the upgrade alone, without the block's transactions)",
        `(block ${report.appliedAt}: ${report.follow === undefined ? "empty, the upgrade alone" : "the source's transactions, then the upgrade"})`,
      ),
    );
  lines.push("checks:");
  if (report.checks.length === 0) lines.push("  (none declared)");
  for (const c of report.checks) {
    lines.push(`  ${c.passed ? "ok  " : "FAIL"}  ${c.name} (${c.phase})${c.passed ? "" : `: ${c.error}`}`);
  }
  const det = report.determinism;
  if (!det.ran) lines.push("determinism: not checked (--no-determinism)");
  else {
    const env =
      det.second === undefined
        ? ""
        : ` (second run: TZ ${det.second.timeZone}, locale ${det.second.locale}, clock +${det.second.clockOffsetMs} ms, Math.random seeded)`;
    lines.push(`determinism: ${det.equal ? "same app hash in both runs" : "FAIL"}${env}`);
    if (!det.equal) {
      if (det.error !== undefined) lines.push(`  ${det.error}`);
      else lines.push(`  second app hash ${det.appHashSecond}`);
      const diff = det.difference;
      if (diff !== undefined) {
        lines.push(
          diff.key === undefined
            ? `  store ${diff.store} exists in one run only`
            : `  store ${diff.store}, first differing key ${diff.key}${diff.keyText === undefined ? "" : ` ("${diff.keyText}")`}: ${diff.first ?? "(absent)"} vs ${diff.second ?? "(absent)"}`,
        );
      }
    }
  }
  if (report.follow !== undefined) {
    lines.push(`follow (${report.follow.blocks.length} of ${report.follow.requested} blocks held by the source):`);
    for (const b of report.follow.blocks) {
      lines.push(
        `  ${b.height}: ${b.txs} txs, ${b.succeeded} ok, ${b.failedAsOnSource} failed as on the source, ${b.broken.length} newly failing; gas ${b.gasUsed} (source ${b.sourceGasUsed})`,
      );
      for (const t of b.broken) lines.push(`    tx ${t.index}: code ${t.code} (${t.codespace}) ${t.log}`);
    }
  }
  const d = report.durations;
  for (const m of d.migrations) lines.push(`migration ${m.module} ${m.from} -> ${m.to}: ${ms(m.ms)} ms`);
  lines.push(
    `pause estimate at the height: ${ms(d.pauseEstimateMs)} ms (open with store loader ${ms(d.loadMs)}, handler and migrations ${ms(d.handlerMs)}, commit ${ms(d.commitMs)})`,
  );
  lines.push(
    `took ${ms(d.totalMs)} ms (prepare ${ms(d.prepareMs)}, block ${ms(d.blockMs)}, checks ${ms(d.checksMs)}, second run ${ms(d.secondRunMs)}, follow ${ms(d.followMs)}); peak RSS ${Math.round(report.peakRssBytes / 1048576)} MiB`,
  );
  lines.push(report.passed ? "PASSED" : `FAILED: ${report.failures.length} failure(s)`);
  for (const f of report.failures) lines.push(`  ${f}`);
  return `${lines.join("\n")}\n`;
}
