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
      conditionText += ` ${text.slice(operandStart, pos)}`; // as written, as CometBFT prints it
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

/**
 * A query in CometBFT's canonical form (its parsed query's String()): the conditions one space apart, joined by
 * ` AND `. Subscriptions are told apart by this form, so `tm.event='Tx'` and `tm.event = 'Tx'` are one query.
 */
export function canonicalQuery(conditions: readonly QueryCondition[]): string {
  return conditions.map((c) => c.text).join(" AND ");
}

// CometBFT's scanner (libs/pubsub/query/syntax): a string runs to the next quote (no escapes); a number is digits
// with an optional fraction (no sign, no exponent); TIME and DATE take exactly one space, then the characters a
// time or a date can hold, in years 1900-2999. What it refuses is refused here too.
const TIME_CHARS = /[-T:+Z0-9]/;
const DATE_CHARS = /[-0-9]/;

function parseOperand(text: string, pos: number): [QueryOperand, number] {
  if (text[pos] === "'") {
    const end = text.indexOf("'", pos + 1);
    if (end < 0) fail(text, pos, "a closing quote");
    return [{ kind: "string", value: text.slice(pos + 1, end) }, end + 1];
  }
  for (const word of ["TIME", "DATE"] as const) {
    if (text.startsWith(`${word} `, pos)) {
      const start = pos + word.length + 1;
      const chars = word === "TIME" ? TIME_CHARS : DATE_CHARS;
      let i = start;
      while (i < text.length && chars.test(text[i])) i++;
      const raw = text.slice(start, i);
      const expected = word === "DATE" ? "a date like 2024-01-31" : "a time like 2024-01-31T10:00:00Z";
      if (word === "DATE" ? !/^\d{4}-\d{2}-\d{2}$/.test(raw) : !/^\d{4}-/.test(raw)) fail(text, start, expected);
      const year = Number(raw.slice(0, 4));
      if (year < 1900 || year > 2999) fail(text, start, `${expected}, in the years 1900 to 2999`);
      try {
        const ts = parseRfc3339(word === "DATE" ? `${raw}T00:00:00Z` : raw);
        return [{ kind: "time", millis: timestampToMillis(ts) }, i];
      } catch {
        fail(text, start, expected);
      }
    }
  }
  const m = /^\d+(\.\d*)?/.exec(text.slice(pos));
  if (m === null) fail(text, pos, "a 'quoted string', a number, TIME or DATE");
  const integer = m[1] === undefined ? BigInt(m[0]) : undefined;
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
