/**
 * The chat text of a call served over MCP (`workflow mcp`, stdio and
 * `--http`) is a client's, and the server does not trust it ([TS-FIX]
 * R115-1): a chat task compiles its `chat` input, so `mcp: stdio '<command>'`
 * in the argument started a process and `file: /etc/hostname` put the
 * server's file into the prompt. Each chat input of the task called — an
 * input of type `chat`, the `chat` input of a task whose result is a chat
 * (what `api.chatTask` declares), also through its dependencies and the
 * parent inputs passed to them (`{fromInput}`) — is held to the rule of a
 * relay worker (`chat/untrusted.ts`): plain messages only, a directive line
 * fails the call naming it.
 *
 * @module
 */
import { untrustedMessages } from "../../chat/untrusted.ts";
import { depWorkflow, type Task, taskOf, type Workflow } from "../../workflow/define.ts";
import { isFromInput } from "../../workflow/job_refs.ts";

/** An input whose value the task reads as chat text. */
function isChatInput(task: Task, input: { name: string; type: string }): boolean {
  return input.type === "chat" || (task.type === "chat" && input.name === "chat");
}

/**
 * The inputs of a task (its own and those its dependencies take from the
 * caller) whose values are read as chat text, by the name a caller gives.
 *
 * @param wf the workflow
 * @param taskName the task
 * @returns the input names
 *
 * @example
 * ```ts
 * import { workflow } from "../../workflow/define.ts";
 * import { chatInputNames } from "./untrusted_args.ts";
 * const wf = workflow("W", {
 *   tasks: { ask: { type: "chat", inputs: { chat: { type: "text" } }, run: () => [] } },
 * });
 * chatInputNames(wf, "ask"); // ["chat"]
 * ```
 */
export function chatInputNames(wf: Workflow, taskName: string): string[] {
  const out = new Set<string>();
  // `given` maps a task's input name to the caller's (null: fixed by a dependency's options)
  const visit = (w: Workflow, t: Task, given: (n: string) => string | null, stack: string[]) => {
    const key = `${w.name}#${t.name}`;
    if (stack.includes(key)) return;
    for (const i of t.inputs) {
      const name = isChatInput(t, i) ? given(i.name) : null;
      if (name !== null) out.add(name);
    }
    for (const d of t.deps) {
      const dw = depWorkflow(w, d);
      if (dw === undefined || !Object.hasOwn(dw.tasks, d.task)) continue;
      const set = d.inputs ?? {};
      const depGiven = (n: string): string | null => {
        if (!Object.hasOwn(set, n)) return given(n);
        const v = set[n];
        return isFromInput(v) ? given(v.fromInput) : null;
      };
      visit(dw, dw.tasks[d.task]!, depGiven, [...stack, key]);
    }
  };
  visit(wf, taskOf(wf, taskName), (n) => n, []);
  return [...out];
}

/**
 * Refuses a call whose chat text holds anything but plain messages.
 *
 * @param wf the workflow
 * @param taskName the task called
 * @param args the call's arguments
 * @throws ScoutError `invalid_input` naming the input and the refused line
 */
export function refuseDirectiveChat(
  wf: Workflow,
  taskName: string,
  args: Record<string, unknown>,
): void {
  for (const name of chatInputNames(wf, taskName)) {
    const value = Object.hasOwn(args, name) ? args[name] : undefined;
    if (value === undefined || value === null) continue;
    untrustedMessages(value, {
      label: `Input "${name}" of ${wf.name}/${taskName}`,
      from: "an MCP client",
      why: "a served task starts no command, loads no tool and reads no file its caller names",
    });
  }
}
