/**
 * The Responses protocol side of the loopback provider server: a scripted
 * step as a response object (reasoning, message and function-call items) and
 * as the SSE events a streamed request receives.
 */
import { argsText, chunksOf, type Piece, usageFor } from "./protocol_parts.ts";
import type { ScriptStep } from "./provider_server.ts";

type Item = Record<string, unknown>;

/** A Responses object as the server stores it (for `previous_response_id`). */
export interface ResponsesJson extends Record<string, unknown> {
  id: string;
  output: Item[];
}

/**
 * The response object of a step.
 *
 * @param step the scripted step
 * @param body the request body (its model and `previous_response_id`)
 * @param nextId the server's id counter
 * @returns the response object
 */
export function responsesJson(
  step: ScriptStep,
  body: Record<string, unknown>,
  nextId: (prefix: string) => string,
): ResponsesJson {
  const id = step.id ?? nextId("resp_");
  const output: Item[] = [];
  if (step.reasoning) {
    output.push({
      type: "reasoning",
      id: nextId("rs_"),
      summary: [{ type: "summary_text", text: step.reasoning }],
    });
  }
  const text = chunksOf(step.text).join("");
  if (text) {
    output.push({
      type: "message",
      id: nextId("msg_"),
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [] }],
    });
  }
  for (const c of step.toolCalls ?? []) {
    output.push({
      type: "function_call",
      id: nextId("fc_"),
      call_id: c.id ?? nextId("call_"),
      name: c.name,
      arguments: argsText(c.arguments),
      status: "completed",
    });
  }
  output.push(...(step.extraItems ?? []));
  return {
    id,
    object: "response",
    created_at: 1735689600,
    status: "completed",
    model: String(body.model ?? "test"),
    output,
    previous_response_id: body.previous_response_id ?? null,
    usage: usageFor("responses", step.usage),
  };
}

type Event = (type: string, rest: Record<string, unknown>) => Piece;

/**
 * The SSE events of a streamed response: created, in progress, each output
 * item's events, completed.
 *
 * @param json the response object ({@link responsesJson})
 * @param step the scripted step (its text chunks)
 * @returns the events in order
 */
export function responsesEvents(json: ResponsesJson, step: ScriptStep): Piece[] {
  let seq = 0;
  const ev: Event = (type, rest) => ({
    event: type,
    data: { type, sequence_number: seq++, ...rest },
  });
  const shell = { ...json, status: "in_progress", output: [], usage: null };
  const pieces: Piece[] = [
    ev("response.created", { response: shell }),
    ev("response.in_progress", { response: shell }),
  ];
  json.output.forEach((item, output_index) => {
    if (item.type === "message") pieces.push(...messageEvents(ev, item, output_index, step));
    else if (item.type === "function_call") {
      pieces.push(...functionCallEvents(ev, item, output_index));
    } else pieces.push(ev("response.output_item.added", { output_index, item }));
    pieces.push(ev("response.output_item.done", { output_index, item }));
  });
  pieces.push(ev("response.completed", { response: json }));
  return pieces;
}

function messageEvents(ev: Event, item: Item, output_index: number, step: ScriptStep): Piece[] {
  const item_id = item.id;
  const text = chunksOf(step.text).join("");
  const at = { item_id, output_index, content_index: 0 };
  return [
    ev("response.output_item.added", {
      output_index,
      item: { ...item, status: "in_progress", content: [] },
    }),
    ev("response.content_part.added", {
      ...at,
      part: { type: "output_text", text: "", annotations: [] },
    }),
    ...chunksOf(step.text).map((delta) =>
      ev("response.output_text.delta", { ...at, delta, logprobs: [] })
    ),
    ev("response.output_text.done", { ...at, text, logprobs: [] }),
    ev("response.content_part.done", {
      ...at,
      part: { type: "output_text", text, annotations: [] },
    }),
  ];
}

function functionCallEvents(ev: Event, item: Item, output_index: number): Piece[] {
  return [
    ev("response.output_item.added", {
      output_index,
      item: { ...item, arguments: "", status: "in_progress" },
    }),
    ev("response.function_call_arguments.delta", {
      item_id: item.id,
      output_index,
      delta: item.arguments,
    }),
    ev("response.function_call_arguments.done", {
      item_id: item.id,
      output_index,
      arguments: item.arguments,
    }),
  ];
}
