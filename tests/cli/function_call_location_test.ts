/**
 * A hand-written `function_call:` line the backends cannot read (not JSON, or
 * JSON without a `name`) fails the ask naming its chat file and line (R133-3),
 * as every compile error does: the decode runs at ask time and takes the place
 * from the message's written-at mark — the `-c` chat's, an imported file's, a
 * `-i` file's, stdin's. Nothing is sent.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";

const BAD = "user: q\n\nfunction_call: {not json\n\nuser: more\n";
const NO_NAME = 'user: q\n\nfunction_call: {"x":1}\n\nuser: more\n';

const cannotRead = (content: string, place: string) =>
  new RegExp(
    `^scout-ai: Cannot read function_call message: ${RegExp.escape(content)} \\(${
      RegExp.escape(place)
    }\\)\\n$`,
  );

Deno.test("llm ask: an unreadable function_call line fails naming its file:line, wherever it was written (R133-3)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer({ fallback: () => ({ text: "a" }) });
  const env = { SCOUT_HOME: join(dir.path, "home"), OPENAI_API_KEY: "sk-x" };
  const flags = ["-b", "openai", "-O", `url=${srv.url}`, "-m", "m", "--no-cache"];
  const put = (name: string, text: string) => writeFileSync(join(dir.path, name), text);
  put("badfc.chat", BAD);
  put("noname.chat", NO_NAME);
  put("main.chat", "system: be brief\n\nimport: badfc.chat\n");
  const cases: [string[], RegExp, string?][] = [
    [["-c", "badfc.chat"], cannotRead("{not json", "badfc.chat:3")],
    [["-c", "noname.chat"], cannotRead('{"x":1}', "noname.chat:3")],
    [["-c", "main.chat"], cannotRead("{not json", "badfc.chat:3")],
    [["-i", "badfc.chat"], cannotRead("{not json", "badfc.chat:3")],
    [["-c", "-"], cannotRead("{not json", "<stdin>:3"), BAD],
  ];
  for (const [args, error, stdin] of cases) {
    const r = await runMain(["llm", "ask", ...args, "go", ...flags], {
      env,
      cwd: dir.path,
      ...(stdin ? { stdin } : {}),
    });
    assert.equal(r.code, 1, args.join(" "));
    assert.match(r.stderr, error, `${args.join(" ")}: ${r.stderr}`);
  }
  assert.equal(srv.requests.length, 0, "nothing sent");
});
