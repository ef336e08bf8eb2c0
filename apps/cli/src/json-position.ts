/**
 * Where a JSON text stops being valid. `JSON.parse` reports a position only
 * for some errors and quotes the input in its message (which may hold a
 * request body), so the CLI locates the error itself and quotes nothing.
 */
export interface JsonErrorLocation {
  offset: number;
  line: number;
  column: number;
  reason: string;
}

const MAX_DEPTH = 4096;

class Stop {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {}
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class Scanner {
  private i = 0;
  constructor(private readonly s: string) {}

  run(): void {
    this.ws();
    this.value(0);
    this.ws();
    if (this.i < this.s.length) throw new Stop(this.i, 'unexpected content after the JSON value');
  }

  private fail(expected: string): never {
    if (this.i >= this.s.length) throw new Stop(this.i, `unexpected end of input, expected ${expected}`);
    throw new Stop(this.i, `unexpected character, expected ${expected}`);
  }

  private ws(): void {
    while (this.i < this.s.length && ' \t\n\r'.includes(this.s[this.i] as string)) this.i++;
  }

  private value(depth: number): void {
    if (depth > MAX_DEPTH) throw new Stop(this.i, 'nested too deeply');
    const c = this.s[this.i];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const word of ['true', 'false', 'null']) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return;
      }
    }
    this.fail('a value');
  }

  private object(depth: number): void {
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail('a property name in double quotes');
      this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail("':'");
      this.i++;
      this.ws();
      this.value(depth + 1);
      this.ws();
      const c = this.s[this.i];
      if (c === '}') {
        this.i++;
        return;
      }
      if (c !== ',') this.fail("',' or '}'");
      this.i++;
    }
  }

  private array(depth: number): void {
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return;
    }
    for (;;) {
      this.ws();
      this.value(depth + 1);
      this.ws();
      const c = this.s[this.i];
      if (c === ']') {
        this.i++;
        return;
      }
      if (c !== ',') this.fail("',' or ']'");
      this.i++;
    }
  }

  private string(): void {
    this.i++;
    while (this.i < this.s.length) {
      const c = this.s[this.i] as string;
      if (c === '"') {
        this.i++;
        return;
      }
      if (c < ' ') throw new Stop(this.i, 'control character in a string');
      if (c === '\\') {
        const e = this.s[this.i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.s.slice(this.i + 2, this.i + 6))) {
            throw new Stop(this.i, 'bad \\u escape in a string');
          }
          this.i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) throw new Stop(this.i, 'bad escape in a string');
        this.i += 2;
        continue;
      }
      this.i++;
    }
    throw new Stop(this.i, 'unterminated string');
  }

  private number(): void {
    const re = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
    re.lastIndex = this.i;
    const m = re.exec(this.s);
    if (m === null) this.fail('a number');
    this.i += m[0].length;
  }
}

/** The first place where `text` is not JSON, or null when it is valid. */
export function locateJsonError(text: string): JsonErrorLocation | null {
  try {
    new Scanner(text).run();
    return null;
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    return { offset: err.offset, reason: err.reason, ...lineAndColumn(text, err.offset) };
  }
}
