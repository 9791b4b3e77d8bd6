/**
 * A pipe (`<(…)`, a FIFO) given to a value input (text, string, integer,
 * array, json…) is read once, when the command line is parsed, and its
 * content is the value — as a file's is, and as stdin's (`-`) is: an array
 * takes its lines. The job is named by that content, so a second run with
 * other content is another job. As with stdin, workers could not read it
 * again: `--deploy local|slurm` refuses it (exit 2). Where the job keeps a
 * file's name as given (`tsv`, `binary`, `noload`…, an item of a plain
 * `array`) a pipe is refused, as a `file` input refuses one. Run by a real
 * bash, for `<(…)`.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/cli.ts";
import { scoutBash } from "../support/scout_bash.ts";

const WORKFLOW = `export default (api) => api.workflow("Vals", { tasks: {
  show: { type: "string",
    inputs: { text: api.input.text({ default: "" }), n: api.input.integer({ default: 0 }),
      list: api.input.array({ default: [] }), obj: api.input.json({ default: null }),
      words: api.input.arrayOf("string", { default: [] }), table: api.input.tsv({ default: "" }) },
    run: (i) => JSON.stringify([i.text, i.n, i.list, i.obj, i.words]) },
} });
`;

async function workflowDir(): Promise<{ path: string } & AsyncDisposable> {
  const d = await tempDir();
  mkdirSync(join(d.path, "wf", "Vals"), { recursive: true });
  writeFileSync(join(d.path, "wf", "Vals", "workflow.ts"), WORKFLOW);
  return d;
}

Deno.test("a pipe given to a value input is read once and its content is the value: text, integer, array (lines), json; other content makes another job", async () => {
  await using d = await workflowDir();
  const r = await scoutBash(
    `scout workflow task wf/Vals show --text <(echo one); echo "text=$?"
     scout workflow task wf/Vals show --text <(echo two); echo "again=$?"
     scout workflow task wf/Vals show --n <(echo 7) --obj=<(echo '{"a": 1}'); echo "n=$?"
     scout workflow task wf/Vals show --list <(printf 'a,b\\nc\\n'); echo "list=$?"
     printf 'p\\nq\\n' > pq; scout workflow task wf/Vals show --words x --words pq; echo "file=$?"
     scout workflow task wf/Vals show --words x --words <(printf 'p\\nq\\n'); echo "items=$?"
     mkfifo fifo; echo three 2>/dev/null >fifo & w=$!
     scout workflow task wf/Vals show --text fifo --words fifo; echo "fifo=$?"
     kill -KILL $w 2>/dev/null; wait $w; echo "writer=$?"`,
    d.path,
  );
  // before: ["/dev/fd/63",…] for both texts (the second run loaded the first's
  // result), exit 2 for --n (not an integer), ["/dev/fd/63"] for the list, and the FIFO's
  // name as the text, its writer left blocked
  assert.equal(
    r.stdout,
    [
      `["one\\n",0,[],null,[]]`,
      "text=0",
      `["two\\n",0,[],null,[]]`,
      "again=0",
      `["",7,[],{"a":1},[]]`,
      "n=0",
      `["",0,["a,b","c"],null,[]]`,
      "list=0",
      `["",0,[],null,["x","p\\nq"]]`, // a file as an item of a string list: its text
      "file=0",
      `["",0,[],null,["x","p\\nq"]]`, // a pipe: the same text, the same job
      "items=0",
      `["three\\n",0,[],null,["three"]]`, // named twice, read once
      "fifo=0",
      "writer=0", // the FIFO was read: its writer ended
      "",
    ].join("\n"),
    r.stderr,
  );
});

Deno.test("a pipe given to a value input cannot go with --deploy local (exit 2), as stdin cannot; a tsv input and a plain array's item refuse a pipe", async () => {
  await using d = await workflowDir();
  const r = await scoutBash(
    `scout workflow task wf/Vals show --text <(echo one) --deploy local; echo "local=$?"
     scout workflow task wf/Vals show --table <(printf 'a\\tb\\n'); echo "tsv=$?"
     scout workflow task wf/Vals show --list x --list <(echo y); echo "item=$?"`,
    d.path,
  );
  assert.equal(r.stdout, "local=2\ntsv=2\nitem=2\n", r.stderr);
  const lines = r.stderr.split("\n").filter((l) => l.startsWith("scout-ai:"));
  assert.equal(lines.length, 3, r.stderr);
  assert.match(
    lines[0]!,
    /^scout-ai: An input read from a pipe \(--text "\/dev\/fd\/\d+"\) cannot go with --deploy local/,
  );
  assert.match(
    lines[1]!,
    /^scout-ai: Input --table \(tsv\) keeps a file name as given: "\/dev\/fd\/\d+" is a pipe, read once; save it to a file first$/,
  );
  // a plain array's items are never loaded from a file: a pipe's name would be the item
  assert.match(
    lines[2]!,
    /^scout-ai: Input --list \(array item\) keeps a file name as given: "\/dev\/fd\/\d+" is a pipe/,
  );
});
