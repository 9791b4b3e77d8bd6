/**
 * Help for someone with only the binary (R128-9), run as the real CLI:
 * `help` takes the whole command path (`help llm ask` is `ask`'s help, not
 * the `llm` group's) and refuses an unknown name as the command itself would
 * (`help chatt`: unknown command, did you mean chat?, exit 2); every command
 * group's help, and every command's, has an Examples section; a help whose
 * examples use the repository's fixtures/ says so, once, as the root help does.
 */
import assert from "node:assert/strict";
import { runScout } from "../support/cli.ts";

const env = { HOME: "/nonexistent-home", SCOUT_HOME: "/nonexistent-scout" };
const NOTE = "Examples (from the repository root; they use its fixtures/):";

Deno.test("R128-9: help takes the whole command path; an unknown name is refused as without help", async () => {
  const [helpAsk, askHelp] = await Promise.all([
    runScout(["help", "llm", "ask"], { env }),
    runScout(["llm", "ask", "--help"], { env }),
  ]);
  assert.equal(helpAsk.code, 0, helpAsk.stderr);
  assert.match(helpAsk.stdout, /^Usage: scout-ai llm ask /);
  assert.equal(helpAsk.stdout, askHelp.stdout);
  const nested = await runScout(["--no-color", "llm", "help", "cache", "clean"], { env });
  assert.match(nested.stdout, /^Usage: scout-ai llm cache clean /);
  for (
    const [args, name, near] of [
      [["help", "chatt"], "chatt", "chat"],
      [["help", "llm", "askk"], "askk", "ask"],
    ] as const
  ) {
    const [viaHelp, direct] = await Promise.all([
      runScout([...args], { env }),
      runScout(args.slice(1), { env }),
    ]);
    assert.equal(viaHelp.code, 2, viaHelp.stderr);
    assert.equal(viaHelp.stdout, "");
    assert.match(
      viaHelp.stderr,
      new RegExp(`^scout-ai: unknown command '${name}'\\n\\(Did you mean ${near}\\?\\)\\n`),
    );
    assert.equal(viaHelp.stderr, direct.stderr);
  }
  const root = await runScout(["help"], { env });
  assert.equal(root.code, 0);
  assert.match(root.stdout, /^Usage: scout-ai \[options\] \[command\]/);
  // after `--` a name is an operand: the help of the path before it (R129-6: "unknown command '--help'")
  const dashes = await runScout(["help", "--", "llm"], { env });
  assert.equal(dashes.code, 0, dashes.stderr);
  assert.equal(dashes.stdout, root.stdout);
});

/** Subcommand names of a help's "Commands:" section (without `help`). */
function subcommands(help: string): string[] {
  const m = /^Commands:\n((?: {2}.*\n?)+)/m.exec(help);
  return (m?.[1] ?? "").split("\n").map((l) => /^ {2}(\S+)/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined && n !== "help");
}

/** Every command's `--help`, walked from the root's, each level's in parallel. */
async function allHelps(): Promise<Map<string, string>> {
  const helps = new Map<string, string>();
  let level: string[][] = [[]];
  while (level.length > 0) {
    const texts = await Promise.all(level.map((p) => runScout([...p, "--help"], { env })));
    const next: string[][] = [];
    level.forEach((path, i) => {
      assert.equal(texts[i]!.code, 0, `${path.join(" ")}: ${texts[i]!.stderr}`);
      helps.set(path.join(" "), texts[i]!.stdout);
      for (const sub of subcommands(texts[i]!.stdout)) next.push([...path, sub]);
    });
    level = next;
  }
  return helps;
}

Deno.test("R128-9: every help has examples; those that use fixtures/ say they run from the repository", async () => {
  const helps = await allHelps();
  for (const group of ["", "chat", "llm", "llm cache", "config", "agent", "kb", "system"]) {
    assert.ok(helps.has(group), `no help for "${group}"`);
  }
  const problems: string[] = [];
  for (const [path, help] of helps) {
    const examples = /^Examples\b[^\n]*:\n((?: {2}.*\n?)+)/m.exec(help);
    if (examples === null) {
      problems.push(`${path || "(root)"}: no Examples section`);
      continue;
    }
    const notes = help.split("from the repository root").length - 1;
    if (examples[0].includes("fixtures/") && notes !== 1) {
      problems.push(`${path || "(root)"}: its examples use fixtures/; said ${notes} times`);
    }
  }
  assert.deepEqual(problems, []);
  // said as the root help says it, in the helps the reviewer read
  for (
    const path of [
      "",
      "chat",
      "chat parse",
      "chat print",
      "chat compile",
      "chat prompt",
      "llm",
      "llm ask",
      "llm json",
      "llm prov",
      "kb",
      "kb register",
      "kb list",
      "kb query",
      "system clean",
      "completion",
    ]
  ) {
    assert.ok(helps.get(path)!.includes(`\n${NOTE}\n`), `${path || "(root)"}: no "${NOTE}"`);
  }
});
