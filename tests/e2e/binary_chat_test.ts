/**
 * The built binary must behave exactly like `deno task scout`: for every file
 * in fixtures/chats/, `chat parse --json`, the listing, and `chat print` of
 * the parsed JSON give byte-identical stdout, stderr and exit codes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BINARY, buildBinary, DENO, ROOT, SCOUT_SOURCE_ARGS } from "../support/cli.ts";

const FIXTURES = join(ROOT, "fixtures", "chats");

interface RawResult {
  code: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
}

/** Like runScout/runBinary, but keeps the raw bytes so the comparison is byte-exact. */
async function runRaw(
  which: "scout" | "binary",
  args: string[],
  stdin?: Uint8Array,
): Promise<RawResult> {
  const [cmd, pre] = which === "scout" ? [DENO, SCOUT_SOURCE_ARGS] : [BINARY, []];
  const child = new Deno.Command(cmd, {
    args: [...pre, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(stdin);
    await w.close();
  }
  const out = await child.output();
  return { code: out.code, stdout: out.stdout, stderr: out.stderr };
}

function assertSame(a: RawResult, b: RawResult, what: string): void {
  const dec = (u: Uint8Array) => new TextDecoder().decode(u);
  assert.equal(b.code, a.code, `${what}: exit code`);
  assert.equal(dec(b.stderr), dec(a.stderr), `${what}: stderr`);
  assert.deepEqual(b.stdout, a.stdout, `${what}: stdout bytes`);
}

const files = [...Deno.readDirSync(FIXTURES)]
  .filter((e) => e.isFile && !e.name.startsWith("."))
  .map((e) => e.name)
  .sort();

Deno.test("fixtures/chats has the varied set the e2e test relies on", () => {
  for (
    const name of [
      "basic.chat",
      "tool_calls.chat",
      "fences.chat",
      "xml_blocks.chat",
      "crlf.chat",
      "unicode.chat",
      "escapes.chat",
      "bad_bytes.chat",
      "structured.messages.json",
    ]
  ) assert.ok(files.includes(name), name);
});

Deno.test({
  name: "binary: chat parse/print are byte-identical to deno task scout on every fixture",
  sanitizeResources: false,
  fn: async (t) => {
    await buildBinary();
    for (const name of files) {
      const path = join(FIXTURES, name);
      await t.step(name, async () => {
        if (name.endsWith(".json")) {
          const scout = await runRaw("scout", ["chat", "print", path]);
          assert.equal(scout.code, 0, new TextDecoder().decode(scout.stderr));
          assertSame(scout, await runRaw("binary", ["chat", "print", path]), "chat print");
          return;
        }
        const json = await runRaw("scout", ["chat", "parse", "--json", path]);
        assert.equal(json.code, 0, new TextDecoder().decode(json.stderr));
        assertSame(json, await runRaw("binary", ["chat", "parse", "--json", path]), "parse --json");

        const listing = await runRaw("scout", ["chat", "parse", path]);
        assertSame(listing, await runRaw("binary", ["chat", "parse", path]), "parse listing");

        const printed = await runRaw("scout", ["chat", "print", "-"], json.stdout);
        assert.equal(printed.code, 0);
        assertSame(printed, await runRaw("binary", ["chat", "print", "-"], json.stdout), "print");

        const fromStdin = await runRaw(
          "binary",
          ["chat", "parse", "--json", "-"],
          await Deno.readFile(path),
        );
        assert.deepEqual(fromStdin.stdout, json.stdout, "stdin gives the same messages");
      });
    }
  },
});

Deno.test({
  name: "binary: --version, --help, errors and exit codes match deno task scout",
  sanitizeResources: false,
  fn: async () => {
    await buildBinary();
    const cases: [string[], number][] = [
      [["--version"], 0],
      [["--help"], 0],
      [["chat", "parse", "--help"], 0],
      [["chat", "parse", "fixtures/chats/does-not-exist.chat"], 1],
      [["chat", "parse", "fixtures"], 1],
      [["chat", "parse", "--bogus"], 2],
      [["nosuchcommand"], 2],
    ];
    for (const [args, code] of cases) {
      const scout = await runRaw("scout", args);
      assert.equal(scout.code, code, args.join(" "));
      assertSame(scout, await runRaw("binary", args), args.join(" "));
    }
    const version = new TextDecoder().decode((await runRaw("binary", ["--version"])).stdout);
    const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
    assert.equal(version, `${config.version}\n`);
  },
});
