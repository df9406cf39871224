// Shape diff of two JSON answers (rpc-compare.ts): key sets and key order, the kind of every value (number, boolean,
// null, and for strings: decimal, upper/lower hex, base64, RFC 3339 time, empty, text), array emptiness, and text
// with its numbers and hex runs masked. Values that must differ between two chains (hashes, heights, times) compare
// by kind only.

/** The kind of a JSON value, precise enough to tell CometBFT's encodings apart. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "string") {
    if (value === "") return "empty-string";
    if (/^-?\d+$/.test(value)) return "decimal-string";
    if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value)) return "time";
    if (/^[0-9A-F]+$/.test(value) && value.length % 2 === 0 && value.length >= 8) return "HEX";
    if (/^[0-9a-f]+$/.test(value) && value.length % 2 === 0 && value.length >= 8) return "hex";
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(value) && value.length % 4 === 0 && value.length >= 4) return "base64";
    return "text";
  }
  return typeof value;
}

/** Text with its numbers, hex runs and base64-looking runs masked, for comparing messages across chains. */
export function maskText(text: string): string {
  return text
    .replace(/\b(0x)?[0-9A-Fa-f]{16,}\b/g, "<hex>")
    .replace(/\d{4}-\d\d-\d\dT[0-9:.]+Z/g, "<time>")
    .replace(/\d+/g, "<n>");
}

function walk(a: unknown, b: unknown, path: string, out: string[]): void {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka !== kb) {
    // An all-digit hex or base64 value can look like another kind by chance; say so only when nothing else fits.
    out.push(`${path}: comet ${ka} ${brief(a)} | embedded ${kb} ${brief(b)}`);
    return;
  }
  if (ka === "text" && maskText(a as string) !== maskText(b as string)) {
    out.push(`${path}: text comet ${JSON.stringify(a)} | embedded ${JSON.stringify(b)}`);
    return;
  }
  if (ka === "array") {
    const xa = a as unknown[];
    const xb = b as unknown[];
    if ((xa.length === 0) !== (xb.length === 0)) {
      out.push(`${path}: comet ${xa.length} items | embedded ${xb.length} items`);
      return;
    }
    for (let i = 0; i < Math.min(xa.length, xb.length, 3); i++) walk(xa[i], xb[i], `${path}[${i}]`, out);
    return;
  }
  if (ka === "object") {
    const oa = a as Record<string, unknown>;
    const ob = b as Record<string, unknown>;
    const keysA = Object.keys(oa);
    const keysB = Object.keys(ob);
    const missing = keysA.filter((k) => !(k in ob));
    const extra = keysB.filter((k) => !(k in oa));
    if (missing.length > 0) out.push(`${path}: embedded lacks ${missing.join(", ")}`);
    if (extra.length > 0) out.push(`${path}: embedded adds ${extra.join(", ")}`);
    const common = keysA.filter((k) => k in ob);
    const orderB = keysB.filter((k) => k in oa);
    // A WebSocket event's composite-key map is a Go map: CometBFT writes its keys in no fixed order.
    if (path !== "$.result.events" && common.join(",") !== orderB.join(",")) {
      out.push(`${path}: key order comet [${common.join(",")}] | embedded [${orderB.join(",")}]`);
    }
    for (const k of common) walk(oa[k], ob[k], `${path}.${k}`, out);
    return;
  }
  if ((ka === "number" || ka === "boolean") && path.endsWith(".code") && a !== b) {
    out.push(`${path}: comet ${String(a)} | embedded ${String(b)}`);
  }
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Every difference in shape between CometBFT's answer and ours, as one line each. */
export function shapeDifferences(
  comet: { status: number; body: unknown },
  embedded: { status: number; body: unknown },
  exact: string[] = [],
): string[] {
  const out: string[] = [];
  if (comet.status !== embedded.status) out.push(`HTTP status: comet ${comet.status} | embedded ${embedded.status}`);
  walk(comet.body, embedded.body, "$", out);
  for (const path of exact) {
    const get = (v: unknown) => path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], v);
    const va = JSON.stringify(get(comet.body));
    const vb = JSON.stringify(get(embedded.body));
    if (va !== vb) out.push(`${path}: value comet ${va} | embedded ${vb}`);
  }
  return out;
}
