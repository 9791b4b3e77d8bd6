/**
 * Reading `$SCOUT_HOME/etc/prices.yaml`: no file means no prices (costs are
 * not shown); a file that is there but cannot be read — a directory in its
 * place, no permission — is an error naming it, never "no prices" (every
 * cost would quietly show `?`).
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadPrices, pricesFile } from "../../src/provenance/prices.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { openDir, runUnprivileged, tmp } from "./support.ts";

Deno.test("loadPrices: no file is null; a directory in its place is a config error naming it", async () => {
  await using t = await tempDir();
  assert.equal(await loadPrices(t.path), null);
  // `etc` a file: no price file can be there either (ENOTDIR is "no file", as llm prov's tree reads it)
  const other = join(t.path, "other");
  mkdirSync(other);
  writeFileSync(join(other, "etc"), "not a directory");
  assert.equal(await loadPrices(other), null);
  const file = pricesFile(t.path);
  mkdirSync(file, { recursive: true });
  await assert.rejects(loadPrices(t.path), (e: Error & { code?: string; file?: string }) => {
    assert.equal(e.code, "config");
    assert.equal(e.file, file);
    assert.ok(e.message.startsWith(`Cannot read price file "${file}": EISDIR`), e.message);
    return true;
  });
});

Deno.test("loadPrices: a price file without read permission (mode 000, unprivileged reader) is an error naming it", async () => {
  await using t = await tmp();
  openDir(t.path);
  mkdirSync(join(t.path, "etc"));
  openDir(join(t.path, "etc"));
  const file = pricesFile(t.path);
  writeFileSync(file, "gpt-5-nano: {input: 0.05, output: 0.4}\n");
  chmodSync(file, 0o000);
  const out = await runUnprivileged(
    t.path,
    `import { loadPrices } from "file://$ROOT/src/provenance/prices.ts";
try {
  console.log(JSON.stringify({ prices: await loadPrices(${JSON.stringify(t.path)}) }));
} catch (e) {
  console.log(JSON.stringify({ code: e.code, file: e.file, message: e.message }));
}`,
  );
  assert.deepEqual(out, {
    code: "config",
    file,
    message: `Cannot read price file "${file}": EACCES: permission denied, open '${file}'`,
  });
});

Deno.test("llm prov with a directory where prices.yaml goes: exit 1 naming it, not costs of ?", async () => {
  await using t = await tempDir();
  const home = join(t.path, "home");
  mkdirSync(pricesFile(home), { recursive: true });
  writeFileSync(
    join(t.path, "s.chat"),
    "user: hi\n\nmeta: pt=10 ct=5 tt=15 inference_id=i1 model=gpt-5-nano\n\nassistant: hello\n",
  );
  const o = { cwd: t.path, env: { SCOUT_HOME: home, NO_COLOR: "1" } };
  for (const args of [[], ["--by", "model"]]) {
    const r = await runMain(["llm", "prov", "s.chat", ...args], o);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stderr,
      new RegExp(`^scout-ai: Cannot read price file "${pricesFile(home)}": EISDIR`),
    );
  }
});
