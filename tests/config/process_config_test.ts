/**
 * scout-ai as a library (mod.ts), in one process: each ask reads the
 * `etc/config` of its own `env` (SCOUT_HOME) and `cwd` (`./etc/config`), not
 * those of the first caller (R105-2), and a chat's `config:` lines go to the
 * store of the `env` and `cwd` it was compiled with. Real files in temp dirs,
 * the loopback provider.
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ask, compileText, processConfig } from "../../mod.ts";
import { tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

/** A directory `<root>/<name>` whose `etc/config` is `text`. */
async function withConfig(root: string, name: string, text: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(join(dir, "etc"), { recursive: true });
  await writeFile(join(dir, "etc", "config"), text);
  return dir;
}

async function setup() {
  const dir = await tempDir();
  const srv = await startProviderServer({ port: 0, fallback: () => ({ text: "pong" }) });
  const wd = join(dir.path, "wd");
  await mkdir(wd);
  const base = { backend: "openai", url: srv.url, persist: false };
  const env = (home: string) => ({ SCOUT_HOME: home, OPENAI_API_KEY: "k" });
  return {
    dir,
    srv,
    wd,
    model: async (o: { env: Record<string, string>; cwd: string }) =>
      (await ask([{ role: "user", content: "hi" }], { ...base, ...o })).model,
    env,
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("two homes in one process: each ask reads its own home's etc/config", async () => {
  await using s = await setup();
  const homeA = await withConfig(s.dir.path, "homeA", "model modelA ask\n");
  const homeB = await withConfig(s.dir.path, "homeB", "model modelB ask\n");
  assert.equal(await s.model({ env: s.env(homeA), cwd: s.wd }), "modelA");
  assert.equal(await s.model({ env: s.env(homeB), cwd: s.wd }), "modelB");
  assert.equal(await s.model({ env: s.env(homeA), cwd: s.wd }), "modelA");
  assert.deepEqual(s.srv.requests.map((r) => r.body.model), ["modelA", "modelB", "modelA"]);
});

Deno.test("an ask's cwd: its ./etc/config is read, over the home's, whatever the process cwd", async () => {
  await using s = await setup();
  const home = await withConfig(s.dir.path, "home", "model fromHome ask\n");
  const wd2 = await withConfig(s.dir.path, "wd2", "model fromCwd ask\n");
  assert.equal(await s.model({ env: s.env(home), cwd: s.wd }), "fromHome");
  assert.equal(await s.model({ env: s.env(home), cwd: wd2 }), "fromCwd");
});

Deno.test("the same home and cwd: one store, read once; another home: another store", async () => {
  await using s = await setup();
  const homeA = await withConfig(s.dir.path, "homeA", "model modelA ask\n");
  const homeB = await withConfig(s.dir.path, "homeB", "model modelB ask\n");
  const a = processConfig(s.env(homeA), s.wd);
  assert.equal(processConfig({ ...s.env(homeA), OTHER: "x" }, s.wd), a);
  assert.notEqual(processConfig(s.env(homeB), s.wd), a);
  // not read again: an edit of the file is not seen by the process (a new process reads it)
  await writeFile(join(homeA, "etc", "config"), "model edited ask\n");
  assert.equal(await s.model({ env: s.env(homeA), cwd: s.wd }), "modelA");
});

Deno.test("a chat's config: lines go to the store of the env and cwd it was compiled with", async () => {
  await using s = await setup();
  const homeA = await withConfig(s.dir.path, "homeA", "model modelA ask\n");
  const homeB = await withConfig(s.dir.path, "homeB", "model modelB ask\n");
  const chat = await compileText("config: model fromChat ask\n\nuser: hi", {
    env: s.env(homeA),
    cwd: s.wd,
  });
  assert.equal(chat.at(-1)?.content, "hi");
  assert.equal(await s.model({ env: s.env(homeA), cwd: s.wd }), "fromChat");
  assert.equal(await s.model({ env: s.env(homeB), cwd: s.wd }), "modelB");
});
