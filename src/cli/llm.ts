/**
 * `scout-ai llm …` — talking to models (`ask`, `json`) and explaining results
 * (`prov`). Each subcommand lives in its own file and registers itself here.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import type { CliContext } from "./context.ts";
import { registerLlmProv } from "./llm_prov_command.ts";
import { registerLlmAsk } from "./llm_ask.ts";
import { registerLlmProcess } from "./llm_process.ts";

import { registerLlmTemplate } from "./llm_template.ts";

/**
 * Registers the `llm` command group.
 *
 * @param program the root program
 * @param ctx invocation context
 */
export function registerLlm(program: Command, ctx: CliContext): void {
  const llm = program.command("llm").description(
    "ask models and explain how results were produced",
  );
  registerLlmProv(llm, ctx);
  registerLlmAsk(llm, ctx);
  registerLlmProcess(llm, ctx);

  registerLlmTemplate(llm, ctx);
  void llm;
  void ctx;
}
