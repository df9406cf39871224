// The tx_search query language of CometBFT v0.38 (libs/pubsub/query): conditions joined by AND, each
// `<key> <op> <operand>` with =, <, <=, >, >=, CONTAINS, or `<key> EXISTS`. Operands are 'quoted strings',
// numbers, TIME <rfc3339> or DATE <yyyy-mm-dd>. Keys are `tx.height`, `tx.hash` or `<event type>.<attribute key>`.
import { parseRfc3339, timestampToMillis } from "./time.ts";

/** A query operator. */
export type QueryOp = "=" | "<" | "<=" | ">" | ">=" | "CONTAINS" | "EXISTS";

/** A condition's right-hand side. */
export type QueryOperand =
  | { kind: "string"; value: string }
  | { kind: "number"; value: number; integer: bigint | undefined }
  | { kind: "time"; millis: number };

/** One `key op operand` condition. */
export interface QueryCondition {
  key: string;
  op: QueryOp;
  operand: QueryOperand | undefined;
  /** The condition as CometBFT prints it: `key op operand`, one space apart, the operand as written. */
  text: string;
}

/** Raised for a query string that does not parse; the message says where and what was expected. */
export class TxQueryError extends Error {
  override name = "TxQueryError";
}

const KEY_CHAR = /[A-Za-z0-9_.\-/:@]/;

function fail(text: string, pos: number, expected: string): never {
  throw new TxQueryError(`failed to parse query ${JSON.stringify(text)} at offset ${pos}: expected ${expected}`);
}

/** Parses a query such as `tx.height=5 AND transfer.recipient='chain1…'` into its conditions. */
export function parseTxQuery(text: string): QueryCondition[] {
  const conditions: QueryCondition[] = [];
  let pos = 0;
  const skipSpace = () => {
    while (pos < text.length && /\s/.test(text[pos])) pos++;
  };
  skipSpace();
  if (pos >= text.length) fail(text, pos, "at least one condition");
  for (;;) {
    skipSpace();
    const keyStart = pos;
    while (pos < text.length && KEY_CHAR.test(text[pos])) pos++;
    if (pos === keyStart) fail(text, pos, "a key such as tx.height or message.sender");
    const key = text.slice(keyStart, pos);
    skipSpace();
    let op: QueryOp;
    if (text.startsWith("<=", pos) || text.startsWith(">=", pos)) {
      op = text.slice(pos, pos + 2) as QueryOp;
      pos += 2;
    } else if (text[pos] === "=" || text[pos] === "<" || text[pos] === ">") {
      op = text[pos] as QueryOp;
      pos += 1;
    } else if (text.startsWith("CONTAINS", pos)) {
      op = "CONTAINS";
      pos += 8;
    } else if (text.startsWith("EXISTS", pos)) {
      op = "EXISTS";
      pos += 6;
    } else {
      fail(text, pos, "an operator (=, <, <=, >, >=, CONTAINS, EXISTS)");
    }
    let operand: QueryOperand | undefined;
    let conditionText = `${key} ${op}`;
    if (op !== "EXISTS") {
      skipSpace();
      const operandStart = pos;
      [operand, pos] = parseOperand(text, pos);
      if (op === "CONTAINS" && operand.kind !== "string") fail(text, pos, "a quoted string after CONTAINS");
      conditionText += ` ${operandText(text.slice(operandStart, pos))}`;
    }
    conditions.push({ key, op, operand, text: conditionText });
    skipSpace();
    if (pos >= text.length) break;
    if (!text.startsWith("AND", pos) || !/\s/.test(text[pos + 3] ?? "")) {
      // A query ending in AND: the AND is right, the condition after it is what is missing.
      if (text.slice(pos) === "AND") fail(text, pos + 3, "a condition after AND");
      fail(text, pos, "AND or the end of the query");
    }
    pos += 3;
  }
  return conditions;
}

/** An operand as CometBFT prints it: as written, except one space between TIME/DATE and its value. */
function operandText(written: string): string {
  return written.replace(/^(TIME|DATE) +/, "$1 ");
}

/**
 * A query in CometBFT's canonical form (its parsed query's String()): the conditions one space apart, joined by
 * ` AND `. Subscriptions are told apart by this form, so `tm.event='Tx'` and `tm.event = 'Tx'` are one query.
 */
export function canonicalQuery(conditions: readonly QueryCondition[]): string {
  return conditions.map((c) => c.text).join(" AND ");
}

function parseOperand(text: string, pos: number): [QueryOperand, number] {
  if (text[pos] === "'") {
    let value = "";
    let i = pos + 1;
    while (i < text.length && text[i] !== "'") {
      if (text[i] === "\\" && i + 1 < text.length) i++;
      value += text[i];
      i++;
    }
    if (i >= text.length) fail(text, pos, "a closing quote");
    return [{ kind: "string", value }, i + 1];
  }
  for (const word of ["TIME", "DATE"] as const) {
    if (text.startsWith(word, pos)) {
      let i = pos + word.length;
      while (i < text.length && text[i] === " ") i++;
      const start = i;
      while (i < text.length && !/\s/.test(text[i])) i++;
      const raw = text.slice(start, i);
      try {
        const ts = parseRfc3339(word === "DATE" ? `${raw}T00:00:00Z` : raw);
        return [{ kind: "time", millis: timestampToMillis(ts) }, i];
      } catch {
        fail(text, start, word === "DATE" ? "a date like 2024-01-31" : "a time like 2024-01-31T10:00:00Z");
      }
    }
  }
  const m = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(text.slice(pos));
  if (m === null) fail(text, pos, "a 'quoted string', a number, TIME or DATE");
  const integer = m[1] === undefined && m[2] === undefined ? BigInt(m[0]) : undefined;
  return [{ kind: "number", value: Number(m[0]), integer }, pos + m[0].length];
}

function compareNumbers(value: string, operand: { value: number; integer: bigint | undefined }): number | undefined {
  if (!/^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(value)) return undefined;
  const trimmed = value.trim();
  if (operand.integer !== undefined && /^-?\d+$/.test(trimmed)) {
    const v = BigInt(trimmed);
    return v === operand.integer ? 0 : v < operand.integer ? -1 : 1;
  }
  const v = Number(trimmed);
  return v === operand.value ? 0 : v < operand.value ? -1 : 1;
}

/** Whether one attribute value satisfies a condition (the key has already matched). */
export function conditionMatchesValue(cond: QueryCondition, value: string): boolean {
  if (cond.op === "EXISTS") return true;
  const operand = cond.operand;
  if (operand === undefined) return false;
  if (cond.op === "CONTAINS") return operand.kind === "string" && value.includes(operand.value);
  let cmp: number | undefined;
  if (operand.kind === "string") cmp = value === operand.value ? 0 : value < operand.value ? -1 : 1;
  else if (operand.kind === "number") cmp = compareNumbers(value, operand);
  else {
    try {
      const ms = timestampToMillis(parseRfc3339(value));
      cmp = ms === operand.millis ? 0 : ms < operand.millis ? -1 : 1;
    } catch {
      cmp = undefined;
    }
  }
  if (cmp === undefined) return false;
  switch (cond.op) {
    case "=":
      return cmp === 0;
    case "<":
      return cmp < 0;
    case "<=":
      return cmp <= 0;
    case ">":
      return cmp > 0;
    case ">=":
      return cmp >= 0;
  }
}
