/**
 * The `workflow.ts` of a workflow whose inputs are named like Object.prototype
 * members, as the CLI, tool and binary tests write it: task `t` with inputs
 * `toString`, `__proto__` (JSON) and `hasOwnProperty` (integer, default 1),
 * depending on `dep` with `toString`, `constructor`, `valueOf` (default "v")
 * and `__proto__`. Each body answers its inputs; `t` also its dependency's
 * result and its recursive inputs.
 *
 * @module
 */

/** The input names of the workflow, in declaration order of `t` then `dep`. */
export const PROTO_NAMES = ["toString", "__proto__", "hasOwnProperty", "constructor", "valueOf"];

/**
 * The text of the workflow's `workflow.ts`, named `name`; `rename` gives
 * each input another name (the same workflow under plain names).
 */
export function protoWorkflowText(name: string, rename: (n: string) => string = (n) => n): string {
  const k = (n: string) => `[${JSON.stringify(rename(n))}]`; // a computed key: `__proto__` is own
  return `export default (api) => api.workflow(${JSON.stringify(name)}, { tasks: {
  dep: {
    type: "json",
    inputs: { ${k("toString")}: api.input.string(), ${k("constructor")}: api.input.string(),
      ${k("valueOf")}: api.input.string({ default: "v" }), ${k("__proto__")}: api.input.json() },
    run: (i) => ({ ...i }),
  },
  t: {
    type: "json",
    description: "Answers its inputs",
    inputs: { ${k("toString")}: api.input.string(), ${k("__proto__")}: api.input.json(),
      ${k("hasOwnProperty")}: api.input.integer({ default: 1 }) },
    deps: ["dep"],
    run: async (i, job) =>
      ({ own: { ...i }, dep: await job.load("dep"), recursive: { ...job.recursiveInputs } }),
  },
} });
`;
}

/** What `t` answers given no input (keys in the order the bodies list them). */
export const PROTO_NONE: Record<string, unknown> = {
  own: { toString: null, ["__proto__"]: null, hasOwnProperty: 1 },
  dep: { toString: null, constructor: null, valueOf: "v", ["__proto__"]: null },
  recursive: {
    toString: null,
    ["__proto__"]: null,
    hasOwnProperty: 1,
    constructor: null,
    valueOf: "v",
  },
};

/** Command-line arguments giving every input of `t` a value. */
export const PROTO_ARGS = [
  "--toString",
  "a",
  "--__proto__",
  '{"polluted":true}',
  "--hasOwnProperty",
  "2",
  "--constructor",
  "c",
  "--valueOf",
  "w",
];

/** What `t` answers given {@link PROTO_ARGS}. */
export const PROTO_GIVEN: Record<string, unknown> = {
  own: { toString: "a", ["__proto__"]: { polluted: true }, hasOwnProperty: 2 },
  dep: { toString: "a", constructor: "c", valueOf: "w", ["__proto__"]: { polluted: true } },
  recursive: {
    toString: "a",
    ["__proto__"]: { polluted: true },
    hasOwnProperty: 2,
    constructor: "c",
    valueOf: "w",
  },
};
