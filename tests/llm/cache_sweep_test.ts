/**
 * What a process killed mid-request leaves in the cache — its holder file and,
 * under Deno, the entry's temp file opened early, empty — is swept when a
 * later process makes its holder there (`src/llm/cache_holder.ts`, R73-6).
 * Temp files are named by their holder, `<pid>@<host>`: another host's, or a
 * live process's, are not this sweep's.
 */
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { join } from "node:path";
import { withKeyLock } from "../../src/llm/cache_lock.ts";
import { DENO, ROOT, tempDir } from "../support/cli.ts";

const me = `${Deno.pid}@${hostname()}`;
const names = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();

Deno.test("a dead process's temp files go with its holder; another host's and a live one's stay", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  const gone = new Deno.Command(DENO, { args: ["eval", ""] }).spawn();
  await gone.status;
  const dead = `${gone.pid}@${hostname()}`;
  const elsewhere = `${gone.pid}@another-host`;
  const live = `1@${hostname()}`;
  Deno.mkdirSync(join(dir, ".holders"), { recursive: true });
  for (const h of [dead, elsewhere, live]) Deno.writeTextFileSync(join(dir, ".holders", h), h);
  const temps = [dead, elsewhere, live].map((h, i) => `k${i}.json.tmp-${h}-${i + 1}`);
  for (const t of temps) Deno.writeTextFileSync(join(dir, t), "");
  await withKeyLock(dir, "k", (commit) => commit("x"));
  assert.deepEqual(names(dir), [".holders", "k.json", temps[1]!, temps[2]!].sort());
  assert.deepEqual(names(join(dir, ".holders")), [elsewhere, live, me].sort());
});

Deno.test("a process SIGKILLed while its request is out: its empty temp file and lock are cleared", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  const code = `
    import { withKeyLock } from ${JSON.stringify(join(ROOT, "src/llm/cache_lock.ts"))};
    const dir = ${JSON.stringify(dir)};
    await withKeyLock(dir, "k", async () => {
      // the request is out: the entry's temp file is opened in the background
      while (![...Deno.readDirSync(dir)].some((e) => e.name.includes(".json.tmp-"))) {
        await new Promise((r) => setTimeout(r, 5));
      }
      console.log("held");
      await new Promise(() => setInterval(() => {}, 1000));
    });`;
  const child = new Deno.Command(DENO, { args: ["eval", "-q", code], stdout: "piped" }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.match((await reader.read()).value ?? "", /held/);
  child.kill("SIGKILL");
  await child.status;
  await reader.cancel().catch(() => {});
  const left = names(dir).filter((n) => n.includes(".json.tmp-"));
  assert.equal(left.length, 1, "the killed process left its temp file");
  assert.equal(Deno.statSync(join(dir, left[0]!)).size, 0);
  await withKeyLock(dir, "k", (commit) => commit("x"), { waitMs: 3_000 });
  assert.deepEqual(names(dir), [".holders", "k.json"], "no temp file, no lock");
  assert.deepEqual(names(join(dir, ".holders")), [me]);
});

Deno.test("an exit while the entry's temp file is still opening (Deno): the file its open makes after the exit is swept next", async () => {
  await using home = await tempDir();
  const dir = join(home.path, "cache");
  const code = `
    import process from "node:process";
    import { join } from "node:path";
    import { holderText } from ${JSON.stringify(join(ROOT, "src/llm/cache_holder.ts"))};
    import { withKeyLock } from ${JSON.stringify(join(ROOT, "src/llm/cache_lock.ts"))};
    const dir = ${JSON.stringify(dir)};
    Deno.mkdirSync(dir, { recursive: true });
    // the round's temp file, opened in the background, is a FIFO: its open waits for a reader
    const early = join(dir, "k.json.tmp-" + holderText() + "-1");
    new Deno.Command("mkfifo", { args: [early] }).outputSync();
    void withKeyLock(dir, "k", () => new Promise(() => {}));
    setTimeout(() => {
      // last at the exit: what that open, on another thread, may do after the exit removed
      // its path (R161): make the file
      process.on("exit", () => Deno.writeTextFileSync(early, ""));
      process.exit(0);
    }, 200);`;
  const out = await new Deno.Command(DENO, { args: ["eval", "-q", code] }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(names(dir).filter((n) => n.includes(".json.tmp-")).length, 1, "made after the exit");
  await withKeyLock(dir, "k2", (commit) => commit("x"));
  assert.deepEqual(names(dir), [".holders", "k2.json"], "swept with the dead process's holder");
  assert.deepEqual(names(join(dir, ".holders")), [me]);
});
