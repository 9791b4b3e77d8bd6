/**
 * Reading a FIFO in tests: a real reader process, which a write that never
 * came must not leave waiting.
 */

/**
 * What a reader (`cat FIFO`, stdout piped) printed: once it has read to the
 * end, or, when no writer came within `ms`, killed (then what it got).
 *
 * @param reader the reader process
 * @param ms how long a writer may take
 * @returns its stdout
 */
export async function readToEndOrKill(reader: Deno.ChildProcess, ms = 5_000): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ended = await Promise.race([
    reader.status.then(() => true),
    new Promise<false>((ok) => timer = setTimeout(() => ok(false), ms)),
  ]);
  clearTimeout(timer);
  if (!ended) reader.kill();
  return new TextDecoder().decode((await reader.output()).stdout);
}
