import assert from "node:assert/strict";
import { marshalException, marshalExceptionBytes } from "../../src/workflow/marshal.ts";
import { errorInfoPatch } from "../../src/workflow/failure.ts";
import { ScoutError } from "../../src/errors.ts";

/** A small independent Marshal reader (enough for exception dumps, Ruby's and ours). */
function load(bytes: Uint8Array): unknown {
  let i = 2;
  const syms: string[] = [];
  const dec = new TextDecoder();
  const int = (): number => {
    const c = (bytes[i++]! << 24) >> 24;
    if (c === 0) return 0;
    if (c > 4) return c - 5;
    if (c < -4) return c + 5;
    let n = 0;
    for (let k = 0; k < Math.abs(c); k++) n |= bytes[i++]! << (8 * k);
    return n;
  };
  const raw = (): string => {
    const n = int();
    const s = dec.decode(bytes.slice(i, i + n));
    i += n;
    return s;
  };
  const value = (): unknown => {
    const t = String.fromCharCode(bytes[i++]!);
    switch (t) {
      case ":": {
        const s = raw();
        syms.push(s);
        return s;
      }
      case ";":
        return syms[int()];
      case '"':
        return raw();
      case "I": {
        const v = value();
        const n = int();
        for (let k = 0; k < n; k++) {
          value();
          value();
        }
        return v;
      }
      case "[": {
        const n = int();
        return Array.from({ length: n }, () => value());
      }
      case "o": {
        const cls = value() as string;
        const n = int();
        const ivars: Record<string, unknown> = {};
        for (let k = 0; k < n; k++) {
          const key = value() as string;
          ivars[key] = value();
        }
        return { class: cls, ivars };
      }
      case "0":
        return null;
      case "T":
        return true;
      case "F":
        return false;
      default:
        throw new Error(`unsupported tag ${t}`);
    }
  };
  assert.deepEqual([bytes[0], bytes[1]], [4, 8]);
  return value();
}

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/cli.ts";

const b64 = (s: string) => Uint8Array.from(atob(s.replaceAll("\n", "")), (c) => c.charCodeAt(0));

Deno.test("reader sanity: decodes the head of Ruby's own dump from the spec", () => {
  // Spec §3.2 prefix of Ruby's Marshal.dump(ScoutException.new("bad x")), cut after
  // the mesg ivar: rebuild a complete object with ivar count 1.
  const ruby = b64("BAhvOhNTY291dEV4Y2VwdGlvbgg6CW1lc2dJIgpiYWQgeAY6BkVU");
  const head = Uint8Array.from([...ruby]);
  head[19] = 6; // ivar count 3 → 1 so the cut dump is complete
  assert.deepEqual(load(head), { class: "ScoutException", ivars: { mesg: "bad x" } });
});

Deno.test("our dump: object of the class with mesg and bt, base64 in 60-char lines", () => {
  const bt = Array.from({ length: 5 }, (_, k) => `workflow.ts:${k + 1}:in 'run'`);
  const bytes = marshalExceptionBytes("RuntimeError", "bad x", bt);
  assert.deepEqual(load(bytes), { class: "RuntimeError", ivars: { mesg: "bad x", bt } });
  const text = marshalException("ScoutException", "é".repeat(200), bt);
  const lines = text.split("\n");
  assert.equal(lines.pop(), "");
  assert.ok(lines.slice(0, -1).every((l) => l.length === 60));
  assert.ok(lines.at(-1)!.length <= 60);
  assert.deepEqual(load(b64(text)), {
    class: "ScoutException",
    ivars: { mesg: "é".repeat(200), bt },
  });
  assert.ok(
    marshalException("ScoutException", "bad x", []).startsWith("BAhvOhNTY291dEV4Y2VwdGlvbg"),
  );
});

Deno.test("errorInfoPatch: key order, class, message entry, backtrace", () => {
  const p = errorInfoPatch(new ScoutError("parameter", "bad x"), new Date(0));
  assert.deepEqual(Object.keys(p), ["status", "exception", "end", "backtrace", "messages"]);
  assert.deepEqual(p.messages, ["ScoutException: bad x"]);
  assert.equal((load(b64(p.exception as string)) as { class: string }).class, "ScoutException");
  const q = errorInfoPatch(new TypeError("boom"));
  assert.deepEqual(q.messages, ["RuntimeError: boom"]);
  assert.ok((q.backtrace as string[]).length > 0);
  assert.ok(!(q.backtrace as string[])[0]!.startsWith("at "));
});

Deno.test("the Scout-made error fixture carries a Ruby-style dump the reader decodes", () => {
  const info = JSON.parse(
    readFileSync(join(ROOT, "fixtures/scout-jobs/var/jobs/Baking/bake/Default.info"), "utf8"),
  );
  const v = load(b64(info.exception)) as { class: string; ivars: Record<string, unknown> };
  assert.equal(v.class, "ScoutException");
  assert.equal(v.ivars.mesg, "bad x");
  assert.deepEqual(v.ivars.bt, info.backtrace);
  assert.equal(v.ivars.bt_locations, null);
});
