// PromQL text in and out: quoting a value as a PromQL string literal, escaping a literal for a regex
// matcher, and reading a string literal back to its value. One of each, so every query this project
// builds or rewrites escapes the same way. Pure.

/**
 * `value` as a double-quoted PromQL string literal (quotes included). PromQL strings take Go's
 * escapes (Prometheus promql/parser/lex.go, lexString/lexEscape): a backslash or a double quote
 * must be escaped, and a raw newline ends the literal with an error, so those three are escaped.
 */
export function promqlString(value: string): string {
  return `"${value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))}"`;
}

/**
 * `text` as a regex that matches exactly that text, for `=~`/`!~` matchers (RE2 syntax): the
 * metacharacters Go's regexp.QuoteMeta escapes, `\.+*?()|[]{}^$`, each get a backslash. The result
 * still needs promqlString() to go into a query.
 */
export function regexEscape(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$]/g, (c) => `\\${c}`);
}

const SIMPLE_ESCAPES: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 };

function hexDigits(s: string, from: number, n: number, literal: string): number {
  const digits = s.slice(from, from + n);
  if (digits.length !== n || !/^[0-9a-fA-F]+$/.test(digits)) throw new Error(`bad escape sequence in string ${literal}`);
  return parseInt(digits, 16);
}

/**
 * The value of one PromQL string literal (`"…"`, `'…'` or a raw `` `…` ``), with the escapes
 * Prometheus's lexer accepts (promql/parser/lex.go lexEscape: Go's `\a \b \f \n \r \t \v \\`, the
 * opening quote, three octal digits, `\xHH`, `\uHHHH`, `\UHHHHHHHH`). Like Go, octal and `\x` escapes
 * are bytes, so the value is assembled as UTF-8 bytes and must decode as UTF-8. Throws on anything
 * Prometheus would refuse: an unterminated literal, a raw newline in a quoted one, an unknown escape.
 */
export function unquotePromqlString(literal: string): string {
  const q = literal[0];
  if (literal.length < 2 || (q !== '"' && q !== "'" && q !== '`') || literal[literal.length - 1] !== q) {
    throw new Error(`unterminated string ${literal}`);
  }
  const body = literal.slice(1, -1);
  if (q === '`') {
    if (body.includes('`')) throw new Error(`unterminated string ${literal}`);
    return body;
  }
  if (!body.includes('\\')) {
    // The common case, and linear: no escapes, so the value is the text itself.
    if (body.includes('\n')) throw new Error(`newline in string ${literal}`);
    if (body.includes(q)) throw new Error(`unescaped quote in string ${literal}`);
    return body;
  }
  const bytes: number[] = [];
  const pushText = (t: string) => {
    for (const b of Buffer.from(t, 'utf8')) bytes.push(b);
  };
  let i = 0;
  while (i < body.length) {
    const c = body[i]!;
    if (c === '\n') throw new Error(`newline in string ${literal}`);
    if (c === q) throw new Error(`unescaped quote in string ${literal}`);
    if (c !== '\\') {
      const cp = body.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      pushText(ch);
      i += ch.length;
      continue;
    }
    const e = body[i + 1];
    if (e === undefined) throw new Error(`escape sequence not terminated in string ${literal}`);
    if (SIMPLE_ESCAPES[e] !== undefined) {
      bytes.push(SIMPLE_ESCAPES[e]);
      i += 2;
    } else if (e === q) {
      bytes.push(q.charCodeAt(0));
      i += 2;
    } else if (e >= '0' && e <= '7') {
      const digits = body.slice(i + 1, i + 4);
      if (!/^[0-7]{3}$/.test(digits) || parseInt(digits, 8) > 255) throw new Error(`bad octal escape in string ${literal}`);
      bytes.push(parseInt(digits, 8));
      i += 4;
    } else if (e === 'x') {
      bytes.push(hexDigits(body, i + 2, 2, literal));
      i += 4;
    } else if (e === 'u' || e === 'U') {
      const n = e === 'u' ? 4 : 8;
      const cp = hexDigits(body, i + 2, n, literal);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) throw new Error(`escape is not a Unicode code point in string ${literal}`);
      pushText(String.fromCodePoint(cp));
      i += 2 + n;
    } else {
      throw new Error(`unknown escape sequence \\${e} in string ${literal}`);
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    throw new Error(`string ${literal} is not valid UTF-8`);
  }
}
