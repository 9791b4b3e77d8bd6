/**
 * A scripted society against the loopback provider: the boss's turns are
 * scripted tool calls; specialists answer `<name> heard: <last user text>`
 * after a delay, so concurrency shows in the server's request timings.
 */
import { join } from "node:path";
import type { Message } from "../../src/chat/types.ts";
import { chat, createAgent, current } from "../../src/agent/agent.ts";
import { socialize } from "../../src/agent/socialize.ts";
import { chatTask } from "../../src/agent/mod.ts";
import type { Agent } from "../../src/agent/types.ts";
import type { ScriptStep } from "../support/provider_server.ts";
import { type RecordedRequest, startProviderServer } from "../support/provider_server.ts";
import { tempDir } from "../support/cli.ts";
import { workflow } from "../../src/workflow/define.ts";

workflow("Baking", {
  tasks: { whisk: { type: "string", description: "Whisk things", run: () => "whisked" } },
});

/** The system message that identifies a specialist to the router. */
export const sys = (name: string) => `You are ${name}`;

type Wire = { role: string; content: unknown };

/** Wire messages of a request. */
export const wire = (r: RecordedRequest) => (r.body.messages as Wire[]);

/** The specialist (by system prompt) a request came from. */
export const who = (r: RecordedRequest) =>
  String(wire(r)[0]?.content ?? "").replace(/^You are /, "");

/** Starts a scripted society. */
export async function society(opts: { delayMs?: number; env?: Record<string, string> } = {}) {
  const dir = await tempDir();
  const boss: ScriptStep[] = [];
  // by agent name: a Map, so an agent called `constructor` has no plan but its own
  const plans = new Map<string, ScriptStep[]>();
  const srv = await startProviderServer({
    fallback: (req) => {
      const msgs = wire(req);
      const name = who(req);
      const last = msgs.at(-1)!;
      if (name === "boss") {
        if (last.role === "tool") return { text: "boss done" };
        return boss.shift() ?? { text: "boss has no plan" };
      }
      const plan = plans.get(name);
      if (plan?.length && last.role === "user") return plan.shift()!;
      if (last.role === "tool") return { text: `${name} done` };
      const user = [...msgs].reverse().find((m) => m.role === "user");
      return { text: `${name} heard: ${user?.content}`, delayMs: opts.delayMs ?? 0 };
    },
  });
  const env = {
    SCOUT_HOME: join(dir.path, "home"),
    OPENAI_API_KEY: "sk-x",
    ...(opts.env ?? {}),
  };
  const options = { backend: "openai", url: srv.url, model: "m" };
  const runtime = { env, cwd: dir.path };
  const make = (name: string, extra: Message[] = []) =>
    createAgent({
      name,
      startChat: [{ role: "system", content: sys(name) }, ...extra],
      options: { ...options },
      runtime,
    });
  return {
    dir,
    srv,
    env,
    options,
    runtime,
    make,
    /** Scripts the boss's next turn: these calls (ids c1, c2, …). */
    plan: (...calls: [string, Record<string, unknown>][]) =>
      boss.push({
        toolCalls: calls.map(([name, args], i) => ({ name, arguments: args, id: `c${i + 1}` })),
      }),
    /** Scripts a specialist's next turn that ends with a user message. */
    planFor: (who: string, ...calls: [string, Record<string, unknown>][]) =>
      (plans.get(who) ?? plans.set(who, []).get(who)!).push({
        toolCalls: calls.map(([name, args], i) => ({
          name,
          arguments: args,
          id: `${who}${i + 1}`,
        })),
      }),
    requestsOf: (name: string) => srv.requests.filter((r) => who(r) === name),
    [Symbol.asyncDispose]: async () => {
      await srv.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** Role and content of messages (`meta` content reduced to "meta"). */
export function shape(ms: readonly Message[] | null): string[] {
  return (ms ?? []).map((m) => m.role === "meta" ? "meta" : `${m.role} ${m.content}`);
}

/** The tool outputs of messages, parsed. */
export function outputs(ms: readonly Message[]): Record<string, unknown>[] {
  return ms.filter((m) => m.role === "function_call_output").map((m) =>
    JSON.parse(m.content as string)
  );
}

/** A specialist's template registered on the caller (what loadAgent would give). */
export function addTemplate(caller: Agent, template: Agent): void {
  caller.society[template.name!] = template;
}

/**
 * Gives the boss a Worker template and the `ask` tool, and runs one boss
 * turn that asks the Worker each `[prompt, conversation]` in one batch.
 */
export async function askWorker(
  s: Awaited<ReturnType<typeof society>>,
  boss: Agent,
  ...calls: [string, string][]
) {
  addTemplate(boss, s.make("Worker"));
  socialize(boss);
  current(boss).push({ role: "user", content: "go" });
  s.plan(
    ...calls.map(([prompt, conversation]) =>
      ["ask", { agent: "Worker", prompt, conversation }] as [string, Record<string, unknown>]
    ),
  );
  return await chat(boss);
}

/**
 * Asks two conversations of one Worker in one boss turn and asserts they
 * ran one after the other (the second request arrived after the first's
 * answer began).
 */
export async function assertOneAtATime(
  s: Awaited<ReturnType<typeof society>>,
  boss: Agent,
): Promise<void> {
  await askWorker(s, boss, ["x1", "x"], ["y1", "y"]);
  const [a, b] = s.requestsOf("Worker");
  if (!(b!.receivedAt >= a!.firstByteAt!)) throw new Error("specialists ran concurrently");
}

/**
 * A workflow `name` whose chat task `ask` runs the `Boss` agent of `dir`
 * against the loopback server at `url` (no inference cache), jobs under
 * `dir/jobs`.
 */
export function bossWorkflow(
  name: string,
  dir: string,
  url: string,
  runtime: { cwd: string; env: Record<string, string> },
) {
  return workflow(name, {
    jobsDir: join(dir, "jobs"),
    tasks: chatTask("ask", async ({ agent, chat }) =>
      await agent("Boss", {
        chat: chat(),
        runtime,
        backend: "openai",
        url,
        model: "m",
        persist: false,
      })),
  });
}

/**
 * The text of a `workflow.ts` for `dir` whose chat task `ask` runs the agent
 * of `dir` on the job's chat, exporting only a `noop` task: the agent's own
 * `ask` tool (it socializes), not the workflow's task, answers its calls.
 */
export function socialTaskWorkflowText(name: string, dir: string): string {
  return `export default (api) => api.workflow(${JSON.stringify(name)}, {
  tasks: { ...api.chatTask("ask", async ({ agent, chat }) => await agent(${
    JSON.stringify(dir)
  }, { chat: chat() })), noop: { type: "string", inputs: {}, run: () => "ok" } },
  exports: { exec: ["noop"] },
});\n`;
}
