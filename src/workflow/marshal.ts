/**
 * The minimal Ruby Marshal dump of an exception that `.info` files carry in
 * `exception` (`workflow.md` §7.3): an object of class `className` with the
 * instance variables `mesg` (the message) and `bt` (the backtrace), encoded
 * as base64 with a newline every 60 characters, as Ruby's `Base64.encode64`.
 * Ruby's `Marshal.load` accepts it; the port itself never reads it back (it
 * reads `messages` and `backtrace`).
 *
 * @module
 */

/** Ruby exception classes Scout treats as deliberate (not recoverable by a retry). */
export const SCOUT_EXCEPTION_CLASSES: ReadonlySet<string> = new Set([
  "ScoutException",
  "ParameterException",
  "MissingParameterException",
  "FieldNotFoundError",
  "DependencyError",
  "Aborted",
  "TryAgain",
  "StopInsist",
  "SemaphoreInterrupted",
  "LockInterrupted",
  "ProcessFailed",
  "ConcurrentStreamProcessFailed",
  "OpenURLError",
  "DontClose",
  "KeepLocked",
  "RemoteServerError",
]);

function marshalInt(n: number, out: number[]): void {
  if (n === 0) {
    out.push(0);
  } else if (n > 0 && n < 123) {
    out.push(n + 5);
  } else if (n < 0 && n > -124) {
    out.push((n - 5) & 0xff);
  } else {
    const bytes: number[] = [];
    let v = n;
    if (n > 0) {
      while (v > 0) {
        bytes.push(v & 0xff);
        v = Math.floor(v / 256);
      }
      out.push(bytes.length, ...bytes);
    } else {
      // Negative: two's complement little-endian, shortest form.
      for (let i = 0; i < 4; i++) {
        bytes.push(v & 0xff);
        v >>= 8;
        if (v === -1 && (bytes[bytes.length - 1]! & 0x80) !== 0) break;
      }
      out.push((256 - bytes.length) & 0xff, ...bytes);
    }
  }
}

function marshalBytes(tag: number, data: Uint8Array, out: number[]): void {
  out.push(tag);
  marshalInt(data.length, out);
  for (const b of data) out.push(b);
}

const enc = new TextEncoder();

/**
 * Ruby `Base64.encode64`: standard alphabet, a newline after every 60
 * characters and at the end.
 *
 * @param bytes data
 * @returns base64 text with line breaks
 */
export function base64Lines(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  const flat = btoa(bin);
  let out = "";
  for (let i = 0; i < flat.length; i += 60) out += flat.slice(i, i + 60) + "\n";
  return out;
}

/**
 * Marshal-dumps an exception (`04 08 'o' :Class 2 :mesg "msg" :bt [ "line"… ]`).
 *
 * @param className Ruby class name, `ScoutException` or `RuntimeError`
 * @param message the message
 * @param backtrace backtrace lines
 * @returns the raw Marshal bytes
 */
export function marshalExceptionBytes(
  className: string,
  message: string,
  backtrace: readonly string[],
): Uint8Array {
  const out: number[] = [4, 8, 0x6f];
  marshalBytes(0x3a, enc.encode(className), out); // ':' symbol
  marshalInt(2, out);
  marshalBytes(0x3a, enc.encode("mesg"), out);
  marshalBytes(0x22, enc.encode(message), out); // '"' binary string
  marshalBytes(0x3a, enc.encode("bt"), out);
  out.push(0x5b); // '['
  marshalInt(backtrace.length, out);
  for (const line of backtrace) marshalBytes(0x22, enc.encode(line), out);
  return Uint8Array.from(out);
}

/**
 * The `exception` field of an `.info` file: base64 (60-char lines) of
 * {@link marshalExceptionBytes}.
 *
 * @param className Ruby class name
 * @param message the message
 * @param backtrace backtrace lines
 * @returns base64 text ending in a newline
 *
 * @example
 * ```ts
 * import { marshalException } from "./marshal.ts";
 * marshalException("ScoutException", "bad x", []).startsWith("BAhvOhNTY291dEV4Y2VwdGlvbg"); // true
 * ```
 */
export function marshalException(
  className: string,
  message: string,
  backtrace: readonly string[],
): string {
  return base64Lines(marshalExceptionBytes(className, message, backtrace));
}
