// The gateway's route table, derived from the served routes' HTTP bindings, and its matcher.
// Matching walks the path segment by segment preferring a literal over a variable over a `**` tail,
// so `blocks/latest` beats `blocks/{height}` whatever the registration order; two bindings of the
// same shape and method (auth's `bech32/{address_bytes}` and `bech32/{address_string}`) resolve to
// the first registered, and the other is reported as shadowed. A path that matches only under other
// methods gives those methods, for a 405 with `Allow`.
import { type HttpBinding, httpBindings } from "./http-rules.ts";
import type { ServedRoute } from "./served-routes.ts";

/** One REST route: a served route under one of its bindings. */
export interface RestRoute {
  route: ServedRoute;
  binding: HttpBinding;
  /** Dotted request fields bound by the path (query parameters may not override them). */
  pathFields: ReadonlySet<string>;
}

/** The outcome of matching a request. */
export type RouteMatch =
  | { kind: "found"; rest: RestRoute; params: Map<string, string> }
  | { kind: "wrong-method"; allow: string[] }
  | { kind: "none" };

interface TrieNode {
  literal: Map<string, TrieNode>;
  variable: TrieNode | undefined;
  /** Routes whose `{field=**}` tail starts below this node. */
  tail: RestRoute[];
  /** Routes that end at this node. */
  end: RestRoute[];
}

function newNode(): TrieNode {
  return { literal: new Map(), variable: undefined, tail: [], end: [] };
}

/** The route table. */
export class RestRouter {
  /** Every reachable route, in registration order. */
  readonly routes: RestRoute[] = [];
  /** Routes hidden by an earlier route of the same shape and method (never matched). */
  readonly shadowed: RestRoute[] = [];
  private readonly root = newNode();

  /** Derives the table from `served` (its order is the registration order). */
  constructor(served: readonly ServedRoute[]) {
    for (const route of served) {
      for (const binding of httpBindings(route.method))
        this.add({ route, binding, pathFields: new Set(binding.pathFields) });
    }
  }

  private add(rest: RestRoute): void {
    let node = this.root;
    let list: RestRoute[] | undefined;
    for (const segment of rest.binding.segments) {
      if (segment.kind === "literal") {
        let next = node.literal.get(segment.value);
        if (next === undefined) {
          next = newNode();
          node.literal.set(segment.value, next);
        }
        node = next;
      } else if (segment.rest) {
        list = node.tail;
      } else {
        node.variable ??= newNode();
        node = node.variable;
      }
    }
    list ??= node.end;
    if (list.some((other) => other.binding.method === rest.binding.method)) {
      this.shadowed.push(rest);
      return;
    }
    list.push(rest);
    this.routes.push(rest);
  }

  /**
   * Matches `method` and the decoded path `segments` (the path split on "/" without the leading
   * empty one). HEAD is served by GET routes.
   */
  match(method: string, segments: readonly string[]): RouteMatch {
    const wanted = method === "HEAD" ? "GET" : method;
    // The usual case, found without building the candidate list.
    const found = first(this.root, segments, 0, wanted);
    if (found !== undefined) return { kind: "found", rest: found, params: paramsOf(found.binding, segments) };
    const candidates: RestRoute[][] = [];
    collect(this.root, segments, 0, candidates);
    const allow = new Set<string>();
    for (const group of candidates) {
      for (const rest of group) {
        if (rest.binding.method === wanted) return { kind: "found", rest, params: paramsOf(rest.binding, segments) };
        allow.add(rest.binding.method);
      }
    }
    if (allow.size === 0) return { kind: "none" };
    // A GET route answers HEAD too (above), so Allow names it (RFC 9110 §10.2.1: every method the resource supports).
    if (allow.has("GET")) allow.add("HEAD");
    return { kind: "wrong-method", allow: [...allow].sort() };
  }
}

// Depth first, most specific first: literal child, then variable child, then a `**` tail.
function collect(node: TrieNode, segments: readonly string[], index: number, out: RestRoute[][]): void {
  if (index === segments.length) {
    if (node.end.length > 0) out.push(node.end);
    return;
  }
  const literal = node.literal.get(segments[index]);
  if (literal !== undefined) collect(literal, segments, index + 1, out);
  if (node.variable !== undefined) collect(node.variable, segments, index + 1, out);
  if (node.tail.length > 0) out.push(node.tail);
}

// The route `collect` + the first method match would give, in the same order, without the list.
function first(node: TrieNode, segments: readonly string[], index: number, method: string): RestRoute | undefined {
  if (index === segments.length) return node.end.find((rest) => rest.binding.method === method);
  const literal = node.literal.get(segments[index]);
  const viaLiteral = literal === undefined ? undefined : first(literal, segments, index + 1, method);
  if (viaLiteral !== undefined) return viaLiteral;
  const viaVariable = node.variable === undefined ? undefined : first(node.variable, segments, index + 1, method);
  if (viaVariable !== undefined) return viaVariable;
  return node.tail.find((rest) => rest.binding.method === method);
}

function paramsOf(binding: HttpBinding, segments: readonly string[]): Map<string, string> {
  const params = new Map<string, string>();
  binding.segments.forEach((segment, index) => {
    if (segment.kind !== "field") return;
    params.set(segment.fieldPath, segment.rest ? segments.slice(index).join("/") : segments[index]);
  });
  return params;
}
