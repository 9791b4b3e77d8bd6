/**
 * Local images and PDFs through a relay (R100-1): the client sends them as
 * `data:` URLs (the worker reads no files and refuses local paths, R97-2),
 * and the worker's provider receives them — `backend: relay` with a real
 * `llm process` worker, and the `relay:` option with `llm process_queries`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ask } from "../../src/llm/ask.ts";
import { anthropicMessages } from "../../src/llm/backends/anthropic.ts";
import { ollamaMessages } from "../../src/llm/backends/ollama.ts";
import { responsesInput } from "../../src/llm/backends/responses.ts";
import { newSession } from "../../src/llm/meta_record.ts";
import { runMain, tempDir } from "../support/cli.ts";
import { startProviderServer } from "../support/provider_server.ts";
import { workerHome } from "../support/relay_worker.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const PDF = new TextEncoder().encode("%PDF-1.4\n%%EOF\n");
const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));

/** Runs `args` over and over until `done()` (the worker polling the queue). */
function loopWorker(args: string[], env: Record<string, string>, cwd: string) {
  let stop = false;
  const outs: string[] = [];
  const run = (async () => {
    while (!stop) {
      outs.push((await runMain(args, { env, cwd })).stdout);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    outs,
    async end() {
      stop = true;
      await run;
    },
  };
}

/** The user content parts the provider received (chat completions). */
function parts(body: Record<string, unknown>): Record<string, unknown>[] {
  const msgs = body.messages as { content: unknown }[];
  return msgs.flatMap((m) => Array.isArray(m.content) ? m.content : []);
}

Deno.test("backend relay: a local image reaches the worker's provider as a data url (R100-1)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const queue = join(dir.path, "queue");
  const env = await workerHome(dir.path, srv);
  const img = join(dir.path, "x.png");
  await Deno.writeFile(img, PNG);
  srv.script({ text: "A picture." });
  const w = loopWorker(["llm", "process", "--once", "--json", queue], env, dir.path);
  const r = await ask(
    [{ role: "image", content: img }, { role: "user", content: "what is it" }],
    {
      backend: "relay",
      server: queue,
      request_timeout: 90,
      persist: false,
      env: { SCOUT_HOME: join(dir.path, "client-home") },
      config: { entries: [] },
      session: newSession(),
    },
  ).finally(() => w.end());
  assert.equal(r.text, "A picture.");
  assert.ok(!w.outs.some((o) => JSON.parse(o).failed > 0), w.outs.join(""));
  const url = parts(srv.requests[0]!.body).map((p) => (p.image_url as { url: string })?.url);
  assert.deepEqual(url, [`data:image/png;base64,${b64(PNG)}`]);
});

Deno.test("relay option: a local image and PDF reach the provider as data (R100-1)", async () => {
  await using dir = await tempDir();
  await using srv = await startProviderServer();
  const queue = join(dir.path, "query");
  const env = await workerHome(dir.path, srv);
  const img = join(dir.path, "x.png");
  const pdf = join(dir.path, "doc.pdf");
  await Deno.writeFile(img, PNG);
  await Deno.writeFile(pdf, PDF);
  srv.script({ text: "Both seen." });
  const w = loopWorker(["llm", "process_queries", "--once", queue], env, dir.path);
  const r = await ask(
    [{ role: "image", content: img }, { role: "pdf", content: pdf }, {
      role: "user",
      content: "what are they",
    }],
    {
      backend: "openai",
      model: "client-model",
      relay: queue,
      request_timeout: 90,
      persist: false,
      env: { SCOUT_HOME: join(dir.path, "client-home") },
      config: { entries: [] },
      session: newSession(),
    },
  ).finally(() => w.end());
  assert.equal(r.text, "Both seen.");
  const got = parts(srv.requests[0]!.body);
  assert.deepEqual(got[0], {
    type: "image_url",
    image_url: { url: `data:image/png;base64,${b64(PNG)}` },
  });
  assert.deepEqual(got[1], {
    type: "file",
    file: { filename: "doc.pdf", file_data: `data:application/pdf;base64,${b64(PDF)}` },
  });
});

Deno.test("a worker's backends read the data urls as the bytes: anthropic, ollama, responses (R100-1)", () => {
  const img = `data:image/png;base64,${b64(PNG)}`;
  const pdf = `data:application/pdf;name=doc.pdf;base64,${b64(PDF)}`;
  const a = anthropicMessages([{ role: "image", content: img }, { role: "pdf", content: pdf }]);
  assert.deepEqual(a.messages[0]!.content.map((b) => b.source), [
    { type: "base64", media_type: "image/png", data: b64(PNG) },
    { type: "base64", media_type: "application/pdf", data: b64(PDF) },
  ]);
  assert.deepEqual(ollamaMessages([{ role: "image", content: img }])[0]!.images, [b64(PNG)]);
  const r = responsesInput([{ role: "pdf", content: pdf }]).input as { content: unknown[] }[];
  assert.deepEqual(r[0]!.content[0], {
    type: "input_file",
    file_data: `data:application/pdf;base64,${b64(PDF)}`,
    filename: "doc.pdf",
  });
  // a remote url is still refused where it was
  assert.throws(
    () => ollamaMessages([{ role: "image", content: "https://x/y.png" }]),
    /local images/,
  );
});
