// REST bindings read from the `google.api.http` option of each method (docs/CONTRACT.md §7): the gateway has no
// route list of its own, so a new annotated method is served, documented and tested as soon as it
// is registered. Templates: literal segments, `{field}` (one segment), `{field=*}` (one segment),
// `{field=**}` (the rest of the path, slashes included), with dotted field paths (`{pagination.key}`).
import { type DescField, type DescMessage, type DescMethod, getOption, hasOption } from "@bufbuild/protobuf";
import { http } from "../gen/google/api/annotations_pb.js";
import type { HttpRule } from "../gen/google/api/http_pb.js";

/** An HTTP method a binding may use. */
export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";

/** One segment of a path template. */
export type TemplateSegment = { kind: "literal"; value: string } | { kind: "field"; fieldPath: string; rest: boolean };

/** One HTTP binding of a method (the rule itself or one of its additional_bindings). */
export interface HttpBinding {
  method: HttpMethod;
  /** The template as annotated, e.g. `/chain/bank/v1beta1/denoms_metadata/{denom=**}`. */
  template: string;
  segments: TemplateSegment[];
  /** The template with bare `{field}` variables, as Swagger writes paths. */
  swaggerPath: string;
  /** `""` (no body), `"*"` (the whole request) or the name of the request field the body fills. */
  body: string;
  /** Dotted names of the request fields bound by the path. */
  pathFields: string[];
}

/** An annotation the gateway cannot serve; names the method and what is wrong. */
export class HttpRuleError extends Error {
  constructor(method: DescMethod, problem: string) {
    super(`google.api.http rule of ${method.parent.typeName}/${method.name}: ${problem}`);
    this.name = "HttpRuleError";
  }
}

/**
 * The HTTP bindings of a method: its `google.api.http` rule plus every additional binding, or []
 * when the method has no annotation. Throws HttpRuleError for a template the gateway cannot serve
 * or one that names a field the request does not have.
 *
 * @example httpBindings(Query.method.allBalances)[0].template // "/chain/bank/v1beta1/balances/{address}"
 */
export function httpBindings(method: DescMethod): HttpBinding[] {
  if (!hasOption(method, http)) return [];
  const rule = getOption(method, http);
  return [rule, ...rule.additionalBindings].map((binding) => bindingOf(method, binding));
}

/** One binding of `method` from one rule (its additional bindings are not looked at). */
export function bindingOf(method: DescMethod, rule: HttpRule): HttpBinding {
  const pattern = rule.pattern;
  let verb: HttpMethod;
  let template: string;
  switch (pattern.case) {
    case "get":
    case "post":
    case "put":
    case "delete":
    case "patch":
      verb = pattern.case.toUpperCase() as HttpMethod;
      template = pattern.value;
      break;
    default:
      throw new HttpRuleError(method, `the HTTP method ${pattern.case ?? "(none)"} is not supported`);
  }
  if (!template.startsWith("/")) throw new HttpRuleError(method, `the path "${template}" does not start with "/"`);
  const segments = parseTemplate(method, template);
  const pathFields: string[] = [];
  for (const segment of segments) {
    if (segment.kind !== "field") continue;
    checkFieldPath(method, method.input, segment.fieldPath);
    pathFields.push(segment.fieldPath);
  }
  const body = rule.body;
  if (body !== "" && body !== "*") {
    const field = method.input.fields.find((f) => f.name === body);
    if (field === undefined)
      throw new HttpRuleError(method, `body "${body}" is not a field of ${method.input.typeName}`);
  }
  const swaggerPath = `/${segments
    .map((segment) => (segment.kind === "literal" ? segment.value : `{${segment.fieldPath}}`))
    .join("/")}`;
  return { method: verb, template, segments, swaggerPath, body, pathFields };
}

function parseTemplate(method: DescMethod, template: string): TemplateSegment[] {
  // Split on "/" outside braces: a variable's own pattern may not contain "/" here anyway.
  const parts = template.slice(1).split("/");
  const segments: TemplateSegment[] = [];
  parts.forEach((part, index) => {
    const variable = /^\{([A-Za-z_][A-Za-z0-9_.]*)(?:=(\*\*|\*))?\}$/.exec(part);
    if (variable !== null) {
      const rest = variable[2] === "**";
      if (rest && index !== parts.length - 1) {
        throw new HttpRuleError(method, `"{${variable[1]}=**}" must be the last segment of "${template}"`);
      }
      segments.push({ kind: "field", fieldPath: variable[1], rest });
      return;
    }
    if (/[{}]/.test(part)) {
      throw new HttpRuleError(method, `the segment "${part}" of "${template}" is not a supported variable form`);
    }
    if (part.includes(":")) {
      throw new HttpRuleError(method, `custom verbs ("${part}") are not supported in "${template}"`);
    }
    if (part === "") throw new HttpRuleError(method, `"${template}" has an empty segment`);
    segments.push({ kind: "literal", value: part });
  });
  return segments;
}

function checkFieldPath(method: DescMethod, input: DescMessage, fieldPath: string): void {
  let desc: DescMessage = input;
  const names = fieldPath.split(".");
  names.forEach((name, index) => {
    const field: DescField | undefined = desc.fields.find((f) => f.name === name);
    if (field === undefined) {
      throw new HttpRuleError(method, `the path variable "${fieldPath}" names no field of ${input.typeName}`);
    }
    const last = index === names.length - 1;
    if (!last) {
      if (field.fieldKind !== "message") {
        throw new HttpRuleError(method, `the path variable "${fieldPath}" goes through the non-message field ${name}`);
      }
      desc = field.message;
    } else if (field.fieldKind !== "scalar" && field.fieldKind !== "enum") {
      throw new HttpRuleError(method, `the path variable "${fieldPath}" must name a singular scalar or enum field`);
    }
  });
}
