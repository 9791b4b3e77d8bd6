/**
 * A reader for the part of Ruby's Marshal format (4.8) that Scout's job
 * `.info` files use when `SCOUT_SERIALIZER` picks `marshal` (R124-1): nil,
 * true, false, integers (also big ones), floats, strings (their encoding
 * ivars read and dropped; bytes read as UTF-8), symbols and their links
 * (`;`), arrays, hashes (also with a default), object links (`@`), and,
 * to step over them, objects (`o`: an exception), user-dumped values (`u`:
 * a Time), `U`, `C`, `e`, classes and modules, regexps and structs. Written
 * from Ruby's `marshal.c` (`r_object0`), tested on dumps Ruby made
 * (`fixtures/marshal-info/`). Symbols read as strings.
 *
 * @module
 */
import { ScoutError } from "../errors.ts";

/** A Ruby object other than a string, number, array or hash: its class and instance variables (`@` left off). */
export interface RubyObject {
  /** The class name (`RuntimeError`, `Time`…). */
  rubyClass: string;
  /** Its instance variables, or a struct's members. */
  ivars: Record<string, unknown>;
  /** A user-dumped value's bytes (`_dump`) or value (`marshal_dump`). */
  data?: unknown;
}

const utf8 = new TextDecoder("utf-8", { fatal: false });

/** How deep a dump may nest: a job's info nests a few levels. */
const MAX_DEPTH = 1000;

/** One read: the bytes, where it is, how deep, the symbols and objects met so far. */
class Reader {
  depth = 0;
  at = 0;
  readonly symbols: string[] = [];
  readonly objects: unknown[] = [];
  constructor(readonly bytes: Uint8Array) {}

  fail(why: string, truncated = false): never {
    throw new ScoutError("invalid_input", `Ruby Marshal data ${why} (byte ${this.at})`, {
      offset: this.at,
      truncated,
    });
  }

  byte(): number {
    if (this.at >= this.bytes.length) this.fail("ends too early", true);
    return this.bytes[this.at++]!;
  }

  /** `r_long`: a small integer in one byte, or a count byte and little-endian bytes. */
  long(): number {
    const c = (this.byte() << 24) >> 24; // signed
    if (c === 0) return 0;
    if (c > 4) return c - 5;
    if (c < -4) return c + 5;
    let x = 0;
    for (let i = 0; i < Math.abs(c); i++) x += this.byte() * 2 ** (8 * i);
    return c > 0 ? x : x - 2 ** (8 * -c);
  }

  raw(): Uint8Array {
    const n = this.long();
    if (n < 0) this.fail("has a negative length");
    if (this.at + n > this.bytes.length) this.fail("ends too early", true);
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  /** A symbol: `:` defines one (its encoding ivars, if any, read and dropped), `;` links to one. */
  symbol(): string {
    const t = this.byte();
    if (t === 0x3b) return this.symbols[this.long()] ?? this.fail("links to no symbol");
    if (t === 0x49) { // 'I' a symbol with an encoding
      if (this.byte() !== 0x3a) this.fail("has a symbol of an unknown form");
      const s = this.defineSymbol();
      this.ivars();
      return s;
    }
    if (t !== 0x3a) this.fail(`has ${t} where a symbol goes`);
    return this.defineSymbol();
  }

  defineSymbol(): string {
    const s = utf8.decode(this.raw());
    this.symbols.push(s);
    return s;
  }

  /** Instance variables: a count, then symbol/value pairs. */
  ivars(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let n = this.long(); n > 0; n--) {
      const k = this.symbol();
      setKey(out, k.startsWith("@") ? k.slice(1) : k, this.value());
    }
    return out;
  }

  /** Registers an object in the link table; `fill` completes it (its items read after it is registered, as Ruby does). */
  entry<T>(v: T): T {
    this.objects.push(v);
    return v;
  }

  /**
   * The next value. Nested no deeper than {@link MAX_DEPTH} (R129-1: a dump
   * of 200,000 nested arrays, planted in a shared store, overflowed the stack
   * and stopped every clean instead of reading as an unreadable info).
   */
  value(): unknown {
    if (this.depth >= MAX_DEPTH) this.fail("nests too deeply");
    this.depth++;
    try {
      return this.item();
    } finally {
      this.depth--;
    }
  }

  item(): unknown {
    const t = this.byte();
    switch (t) {
      case 0x30: // '0'
        return null;
      case 0x54: // 'T'
        return true;
      case 0x46: // 'F'
        return false;
      case 0x69: // 'i'
        return this.long();
      case 0x3a: // ':'
      case 0x3b: // ';'
        this.at--;
        return this.symbol();
      case 0x40: { // '@'
        const i = this.long();
        return i < this.objects.length ? this.objects[i] : this.fail("links to no object");
      }
      case 0x49: // 'I' a value with instance variables (a string's encoding)
        return this.withIvars();
      default:
        return this.compound(t);
    }
  }

  withIvars(): unknown {
    if (this.bytes[this.at] === 0x75) { // 'u': the ivars go to its bytes, read before it is registered
      this.at++;
      const rubyClass = this.symbol();
      const data = this.raw();
      return this.entry<RubyObject>({ rubyClass, data, ivars: this.ivars() });
    }
    const v = this.value();
    const ivars = this.ivars();
    if (isRubyObject(v)) Object.assign(v.ivars, ivars);
    return v;
  }

  compound(t: number): unknown {
    switch (t) {
      case 0x22: // '"'
        return this.entry(utf8.decode(this.raw()));
      case 0x66: // 'f'
        return this.entry(rubyFloat(utf8.decode(this.raw())));
      case 0x6c: // 'l'
        return this.entry(this.bignum());
      case 0x5b: { // '['
        const a = this.entry<unknown[]>([]);
        for (let n = this.long(); n > 0; n--) a.push(this.value());
        return a;
      }
      case 0x7b: // '{'
      case 0x7d: { // '}' with a default value
        const h = this.entry<Record<string, unknown>>({});
        for (let n = this.long(); n > 0; n--) setKey(h, hashKey(this.value()), this.value());
        if (t === 0x7d) this.value();
        return h;
      }
      default:
        return this.object(t);
    }
  }

  object(t: number): unknown {
    switch (t) {
      case 0x6f: // 'o' an object: its class, then its instance variables
      case 0x53: { // 'S' a struct: its class, then its members
        const o = this.entry<RubyObject>({ rubyClass: this.symbol(), ivars: {} });
        Object.assign(o.ivars, this.ivars());
        return o;
      }
      case 0x75: // 'u' _dump bytes
        return this.entry<RubyObject>({ rubyClass: this.symbol(), data: this.raw(), ivars: {} });
      case 0x55: { // 'U' marshal_dump value
        const o = this.entry<RubyObject>({ rubyClass: this.symbol(), ivars: {} });
        o.data = this.value();
        return o;
      }
      case 0x65: // 'e' extended by a module
      case 0x43: // 'C' a subclass of String, Array, Hash
        this.symbol();
        return this.value();
      case 0x63: // 'c' class
      case 0x6d: // 'm' module
      case 0x4d: // 'M' old class or module
        return this.entry(utf8.decode(this.raw()));
      case 0x2f: { // '/' regexp: its source and options
        const o = this.entry<RubyObject>({
          rubyClass: "Regexp",
          data: utf8.decode(this.raw()),
          ivars: {},
        });
        this.byte();
        return o;
      }
      default:
        return this.fail(
          `has a value of type ${JSON.stringify(String.fromCharCode(t))} it cannot read`,
        );
    }
  }

  bignum(): number | string {
    const sign = this.byte();
    const n = this.long() * 2;
    if (this.at + n > this.bytes.length) this.fail("ends too early", true);
    let v = 0n;
    for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(this.bytes[this.at + i]!);
    this.at += n;
    if (sign === 0x2d) v = -v;
    return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  }
}

function isRubyObject(v: unknown): v is RubyObject {
  return v !== null && typeof v === "object" && "rubyClass" in v && "ivars" in v;
}

/** A Ruby float as dumped (`1.5`, `inf`, `-inf`, `nan`). */
function rubyFloat(s: string): number {
  return s === "inf" ? Infinity : s === "-inf" ? -Infinity : s === "nan" ? NaN : Number(s);
}

/** A hash key as an object key: strings and symbols as they are, anything else as JSON. */
function hashKey(k: unknown): string {
  return typeof k === "string" ? k : JSON.stringify(k) ?? String(k);
}

/** Sets a key, also `__proto__`, as an own property. */
function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/**
 * Reads a Ruby Marshal dump.
 *
 * @param bytes the dump (starting `04 08`)
 * @returns the value: hashes as objects (keys as strings), symbols as strings
 * @throws ScoutError `invalid_input` (with `offset`, and `truncated` when the bytes end too early)
 *
 * @example
 * ```ts
 * import { readMarshal } from "./marshal_read.ts";
 * readMarshal(new Uint8Array([4, 8, 0x7b, 6, 0x3a, 6, 0x61, 0x69, 6])); // { a: 1 }
 * ```
 */
export function readMarshal(bytes: Uint8Array): unknown {
  const r = new Reader(bytes);
  if (r.byte() !== 4 || r.byte() !== 8) {
    r.at = 0;
    r.fail("does not start with version 4.8");
  }
  const v = r.value();
  if (r.at !== bytes.length) r.fail("goes on after its value");
  return v;
}
