/**
 * The Ruby Marshal reader (R124-1): on dumps Ruby 3.1 made
 * (`fixtures/marshal-info/`, `gen.rb` remakes them), every value type a
 * Step info holds; a truncated dump and an unknown type are errors saying so.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { isScoutError } from "../../src/errors.ts";
import { readMarshal, type RubyObject } from "../../src/workflow/marshal_read.ts";
import { marshalInfo } from "../../src/workflow/info_marshal.ts";
import { marshalExceptionBytes } from "../../src/workflow/marshal.ts";
import { parseRubyTime } from "../../src/workflow/time.ts";
import { ROOT } from "../support/cli.ts";

const DIR = join(ROOT, "fixtures", "marshal-info");
const bytes = (name: string) => Deno.readFileSync(join(DIR, name));
const DEP = "/home/ruby/.scout/var/jobs/Wf/dep/X";

Deno.test("readMarshal: every value type of values.bin, as Ruby dumped them", () => {
  const v = readMarshal(bytes("values.bin")) as unknown[];
  assert.deepEqual(v.slice(0, 24), [
    null,
    true,
    false,
    0,
    1,
    -1,
    122,
    123,
    -123,
    -124,
    255,
    256,
    -256,
    -257,
    65_536,
    -65_537,
    2 ** 30,
    2 ** 31,
    -(2 ** 31),
    2 ** 40,
    -(2 ** 40),
    1.5,
    -0.25,
    Infinity,
  ]);
  assert.equal(v[24], "\u00e9t\u00e9");
  assert.equal(v[25], "bin\ufffd", "binary bytes read as UTF-8");
  assert.deepEqual(v.slice(26, 28), ["sym", "sym"]);
  assert.deepEqual(v[28], { k: 1, 2: [3] });
  assert.deepEqual(v[29], { a: 1 }, "a hash with a default");
  assert.deepEqual(v[30], ["shared", "shared"]);
  assert.deepEqual(v.slice(31), [1e100, "ascii", "sjis"]);
});

Deno.test("marshalInfo: a Step info Scout wrote under SCOUT_SERIALIZER=marshal", () => {
  const read = marshalInfo(bytes("running.info"), "running.info");
  assert.equal(read.problem, null);
  const info = read.info!;
  assert.equal(info.status, "start");
  assert.equal(info.pid, 4242);
  assert.equal(info.pid_hostname, "ruby-node");
  assert.deepEqual(info.dependencies, [DEP, "/home/ruby/.scout/var/jobs/Other/side/Y"]);
  assert.deepEqual(info.inputs, [DEP], "an object link to the dependency's string");
  assert.deepEqual(info.input_names, ["name"]);
  assert.deepEqual(parseRubyTime(info.issued), new Date(1_700_000_000_000));
  const error = marshalInfo(bytes("error.info"), "error.info").info!;
  assert.equal(error.status, "error");
  assert.equal(error.time_elapsed, 1.5);
  assert.deepEqual(parseRubyTime(error.end), new Date(1_700_000_002_000));
  assert.equal(error.exception, undefined, "no JSON form: left out");
  const raw = readMarshal(bytes("error.info")) as Record<string, RubyObject>;
  assert.deepEqual(raw.exception, {
    rubyClass: "RuntimeError",
    ivars: { mesg: "boom \u00e9", bt: ["wf.rb:3:in `top'"] },
  });
  assert.deepEqual(error.messages, ["RuntimeError: boom"]);
});

Deno.test("readMarshal reads back the port's own exception dump", () => {
  assert.deepEqual(readMarshal(marshalExceptionBytes("ScoutException", "bad x", ["a:1"])), {
    rubyClass: "ScoutException",
    ivars: { mesg: "bad x", bt: ["a:1"] },
  });
});

Deno.test("readMarshal: a truncated dump, an unknown type and no version are errors", () => {
  const all = bytes("running.info");
  for (const cut of [3, 40, all.length - 1]) {
    assert.throws(
      () => readMarshal(all.subarray(0, cut)),
      (e) =>
        isScoutError(e, "invalid_input") && e.truncated === true &&
        /ends too early/.test(e.message),
      String(cut),
    );
    const read = marshalInfo(all.subarray(0, cut), "D.info");
    assert.ok(read.info === null && read.truncated, String(cut));
    assert.match(
      String(read.problem),
      /^Info file "D\.info" is a Ruby Marshal dump that cannot be read/,
    );
  }
  assert.throws(
    () => readMarshal(new Uint8Array([4, 8, 0x64, 0])),
    (e) => isScoutError(e, "invalid_input") && e.truncated === false && /type "d"/.test(e.message),
  );
  assert.throws(() => readMarshal(new Uint8Array([4, 9, 0x30])), /version 4\.8/);
  assert.throws(() => readMarshal(new Uint8Array([4, 8, 0x30, 0x30])), /goes on after its value/);
  assert.deepEqual(marshalInfo(new Uint8Array([4, 8, 0x5b, 0]), "D.info"), {
    info: null,
    problem: 'Info file "D.info" is a Ruby Marshal dump of no hash',
    truncated: false,
  });
});
