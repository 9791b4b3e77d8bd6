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
  fails(new Uint8Array([0x23, 0x4b, 0x09, 0x54, 0x0a, 0, 1, 2, 3]), /binary content/, 1);
  const rows = (file: string) => collect(file);
  fails("#K\tT\tF\na\tb\tc\nshort\trow\nz\tz\tz\n", /Row has 2 columns, the header has 3/, 3, rows);
  fails("#K\tT\tF\na\tb\tc\td\n", /Row has 4 columns/, 2, rows);
  // the good file passes (the check can fail only on bad rows)
  writeFileSync(f, "#K\tT\tF\na\tb\tc\n\n");
  assert.deepEqual(rows(f), ["a,b,c"]);
});
