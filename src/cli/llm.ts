/**
 * `scout-ai llm …` — talking to models (`ask`, `json`), explaining results
 * (`prov`) and looking after the inference cache (`cache clean`). Each
 * subcommand lives in its own file and registers itself here.
 *
 * @module
 */
import type { Command } from "@commander-js/extra-typings";
import type { CliContext } from "./context.ts";
import { FIXTURE_EXAMPLES } from "./help_text.ts";
import { registerLlmProv } from "./llm_prov_command.ts";
import { registerLlmAsk } from "./llm_ask.ts";
import { registerLlmProcess } from "./llm_process.ts";
import { registerLlmCache } from "./llm_cache.ts";

import { registerLlmTemplate } from "./llm_template.ts";
import { registerNotPorted } from "./not_ported.ts";
import { fittedHelp } from "./help_layout.ts";

/**
 * Registers the `llm` command group.
 *
 * @param program the root program
 * @param ctx invocation context
 */
export function registerLlm(program: Command, ctx: CliContext): void {
  const llm = program.command("llm").description(
    "ask models, explain how results were produced, clean the inference cache",
  ).addHelpText(
    "after",
    fittedHelp(
      `\n${FIXTURE_EXAMPLES}\n  scout-ai llm ask "What is the capital of France?"\n` +
        '  scout-ai llm ask --format json "List three primes as {\\"primes\\": [<numbers>]}"\n' +
        "  scout-ai llm json --chat fixtures/chats/basic.chat\n" +
        "  scout-ai llm prov fixtures/provenance/example/session.chat \\\n" +
        "    --jobs-dir fixtures/provenance/example/jobs",
    ),
  );
  registerLlmProv(llm, ctx);
  registerLlmAsk(llm, ctx);
  registerLlmProcess(llm, ctx);
  registerLlmCache(llm, ctx);

  registerLlmTemplate(llm, ctx);
  registerNotPorted(llm, ctx); // md, word, server: hidden, they say what to use (R158-7)
  void llm;
  void ctx;
}
