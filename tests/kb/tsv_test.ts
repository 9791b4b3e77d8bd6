import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { eachAssociation, fieldIndex, parseTsvOptions, readTsvHeader } from "../../src/kb/tsv.ts";
import { tempDir } from "../support/cli.ts";

function collect(file: string, cols = { source: 0, target: 1, info: [2] }) {
  const out: string[] = [];
  eachAssociation(file, readTsvHeader(file), cols, (s, t, i) => out.push([s, t, ...i].join(",")));
  return out;
}

Deno.test("options line: Scout's string2hash (symbols, numbers, booleans, bare keys)", () => {
  assert.deepEqual(parseTsvOptions(":sep=,#:type=:double"), { sep: ",", type: "double" });
  assert.deepEqual(parseTsvOptions(":type=:list#:cast=:to_f#:n=3#:x=1.5#:flag#:q='a b'"), {
    type: "list",
    cast: "to_f",
    n: 3,
    x: 1.5,
    flag: true,
    q: "a b",
  });
});

Deno.test("header: options, separator, last # line gives the fields; loose field names", async () => {
  await using d = await tempDir();
  const f = join(d.path, "t");
  writeFileSync(f, "#: :sep=,#:type=:list\n#comment line\n#Older (Alias),Younger (Alias)\nA,B\n");
  const h = readTsvHeader(f);
  assert.equal(h.sep, ",");
  assert.equal(h.type, "list");
  assert.deepEqual(h.fields, ["Older (Alias)", "Younger (Alias)"]);
  assert.equal(h.headerLine, 3);
  assert.equal(fieldIndex(h.fields, "Alias"), 0);
  assert.equal(fieldIndex(h.fields, "Younger"), 1);
  assert.equal(fieldIndex(h.fields, "1"), 1);
  assert.equal(fieldIndex(h.fields, "Nope"), -1);
});

Deno.test("double rows zip by position; a one-value column repeats; empty values; CRLF; BOM", async () => {
  await using d = await tempDir();
  const f = join(d.path, "t");
  writeFileSync(
    f,
    "\ufeff#: :type=:double\r\n#K\tT\tF\r\na\tx|y|z\t1|2|3\r\nb\tx|y\tsame\r\nc\t\t9\r\nd\tw\t\r\n",
  );
  assert.deepEqual(collect(f), ["a,x,1", "a,y,2", "a,z,3", "b,x,same", "b,y,same", "d,w,"]);
  // a key column with several values gives every one the pairs
  writeFileSync(f, "#K\tT\tF\nk1|k2\tx\t1\n");
  assert.deepEqual(collect(f), ["k1,x,1", "k2,x,1"]);
  // source/target from other columns (target = key)
  writeFileSync(f, "#: :type=:list\n#K\tT\tF\na\tx\t1\n");
  assert.deepEqual(collect(f, { source: 1, target: 0, info: [2] }), ["x,a,1"]);
});

Deno.test("list rows keep '|' in values; flat rows give one association per value", async () => {
  await using d = await tempDir();
  const f = join(d.path, "t");
  writeFileSync(f, "#: :type=:list\n#K\tT\tF\na\tx|y\t1|2\n");
  assert.deepEqual(collect(f), ["a,x|y,1|2"]);
  writeFileSync(f, "#: :type=:flat\n#K\tT\na\tx|y\n");
  assert.deepEqual(collect(f, { source: 0, target: 1, info: [] }), ["a,x", "a,y"]);
});

Deno.test("bad input: no header, empty field name, one column, binary file, ragged rows — file and line", async () => {
  await using d = await tempDir();
  const f = join(d.path, "bad.tsv");
  const fails = (
    text: string | Uint8Array,
    pattern: RegExp,
    line: number,
    read: (f: string) => unknown = readTsvHeader,
  ) => {
    writeFileSync(f, text);
    assert.throws(() => read(f), (e: Error & { file?: string; line?: number; code?: string }) => {
      assert.equal(e.code, "invalid_input");
      assert.match(e.message, pattern);
      assert.equal(e.file, f);
      assert.equal(e.line, line);
      return true;
    });
  };
  fails("a\tb\n", /No header line/, 1);
  fails("#: :type=:list\n#K\t\tF\n", /Missing field name in column 2/, 2);
  fails("#OnlyKey\n", /names one column/, 1);
  // the NUL is on line 2 (before: the line where the chunk read started, 1 — R76-14)
  fails(new Uint8Array([0x23, 0x4b, 0x09, 0x54, 0x0a, 0, 1, 2, 3]), /binary content/, 2);
  const rows = (file: string) => collect(file);
  fails("#K\tT\tF\na\tb\tc\nshort\trow\nz\tz\tz\n", /Row has 2 columns, the header has 3/, 3, rows);
  fails("#K\tT\tF\na\tb\tc\td\n", /Row has 4 columns/, 2, rows);
  // the good file passes (the check can fail only on bad rows)
  writeFileSync(f, "#K\tT\tF\na\tb\tc\n\n");
  assert.deepEqual(rows(f), ["a,b,c"]);
});

Deno.test("text that is not UTF-8 is an error naming file and line, not entities merged as U+FFFD (R76-4)", async () => {
  await using d = await tempDir();
  const f = join(d.path, "latin1.tsv");
  const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
  // before: caf\xe9 and caf\xe8 both read as "caf\ufffd": one entity, one association lost
  writeFileSync(f, latin1("#K\tT\tF\ncaf\xe9\tx\t1\ncaf\xe8\tx\t2\n"));
  const error = (read: () => unknown, line: number) =>
    assert.throws(read, (e: Error & { file?: string; line?: number; code?: string }) => {
      assert.equal(e.code, "invalid_input");
      assert.match(e.message, /not UTF-8/);
      assert.equal(e.file, f);
      assert.equal(e.line, line);
      return true;
    });
  error(() => collect(f), 2);
  writeFileSync(f, latin1("#Caf\xe9\tT\n"));
  error(() => readTsvHeader(f), 1);
  // a sequence cut by a chunk boundary is not an error; a bad one past the first chunk has its line
  const rows = Array.from(
    { length: 20_000 },
    (_, i) => `\u00e9${i}\t${"\u20ac".repeat(20)}${i}\t${i}`,
  );
  // a header padded so that the first chunk (1 MiB) ends inside a character
  const encode = (pad: number, body: string[]) =>
    new TextEncoder().encode(`#K\tT\tF${"_".repeat(pad)}\n` + body.join("\n") + "\n");
  const pad = [0, 1, 2, 3].find((p) => (encode(p, rows)[1 << 20]! & 0xc0) === 0x80)!;
  const good = encode(pad, rows);
  writeFileSync(f, good);
  assert.equal(collect(f).length, 20_000);
  const bad = [...rows];
  bad[15_000] = "caf\udce9";
  const bytes = encode(pad, bad);
  const at = bytes.findIndex((b, i) =>
    b === 0xef && bytes[i + 1] === 0xbf && bytes[i + 2] === 0xbd
  );
  writeFileSync(
    f,
    Uint8Array.from([
      ...bytes.subarray(0, at),
      0xe9,
      0x09,
      0x78,
      0x09,
      0x31,
      ...bytes.subarray(at + 3),
    ]),
  );
  error(() => collect(f), 15_002);
});

Deno.test("a NUL far into a large file is reported on its own line, not the chunk's first (R76-14)", async () => {
  await using d = await tempDir();
  const f = join(d.path, "big.tsv");
  const rows = Array.from(
    { length: 20_000 },
    (_, i) => `entity${i}\tpartner${i}\tvalue ${"x".repeat(60)}`,
  );
  rows[15_000] = "entity\u0000\tp\tv";
  writeFileSync(f, "#K\tT\tF\n" + rows.join("\n") + "\n");
  assert.throws(() => collect(f), (e: Error & { line?: number }) => {
    assert.match(e.message, /binary content/);
    assert.equal(e.line, 15_002); // header is line 1, rows[15000] is line 15002
    return true;
  });
});
