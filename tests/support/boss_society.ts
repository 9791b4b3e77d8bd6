/**
 * A society for the binary's limit tests: `Agent/Boss` (socialize) asks eight
 * `Agent/Helper`s at once through one loopback provider, endpoint `ep` in
 * `<dir>/home` (the run's SCOUT_HOME). Boss's first request gets the eight
 * `ask` calls, its next one (after their outputs) "boss final"; any other
 * agent's request gets `helperText`.
 *
 * @module
 */
import { put } from "./files.ts";
import { startProviderServer } from "./provider_server.ts";

type Wire = { role: string; content: string };

/**
 * Writes the Boss/Helper society under `dir` and starts its provider.
 *
 * @param dir the run's directory (agents under it, SCOUT_HOME `<dir>/home`)
 * @param helperText what a Helper (or any other agent) answers
 * @returns the provider server (dispose it)
 */
export async function bossSociety(dir: string, helperText: string) {
  const calls = Array.from({ length: 8 }, (_, i) => ({
    id: `c${i}`,
    name: "ask",
    arguments: { agent: "Helper", prompt: `part ${i}` },
  }));
  const srv = await startProviderServer({
    fallback: (req) => {
      const msgs = req.body.messages as Wire[];
      if (msgs[0]!.content !== "You are boss") return { text: helperText };
      if (msgs.at(-1)!.role === "tool") return { text: "boss final" };
      return { toolCalls: calls };
    },
  });
  put(dir, "home/etc/AI/ep.yaml", `backend: openai\nurl: ${srv.url}\nmodel: m\n`);
  put(dir, "Agent/Boss/start_chat", "system: You are boss\n\nendpoint: ep\n\nsocialize: true\n");
  put(dir, "Agent/Helper/start_chat", "system: You are helper\n\nendpoint: ep\n");
  return srv;
}
