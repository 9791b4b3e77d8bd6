/**
 * Chat files in UTF-16/UTF-32, as Windows tools write them, and as a
 * scout-ai from before R133-1 left them after appending its turn in UTF-8
 * (R136-3).
 *
 * @module
 */
import { appendChatBytes } from "../../src/chat/print_append.ts";

/** An encoding and byte order. */
export type WideForm = "16le" | "16be" | "32le" | "32be";

/**
 * `text` in a wide encoding after its byte-order mark, as Windows tools write it.
 *
 * @param text the text
 * @param form the encoding and byte order
 * @returns the file's bytes
 */
export function wideBytes(text: string, form: WideForm): Uint8Array {
  const width = form.startsWith("16") ? 2 : 4;
  const units = width === 2
    ? [0xfeff, ...Array.from({ length: text.length }, (_, i) => text.charCodeAt(i))]
    : [0xfeff, ...Array.from(text, (c) => c.codePointAt(0)!)];
  const out = new Uint8Array(width * units.length);
  units.forEach((u, at) => {
    for (let k = 0; k < width; k++) {
      const shift = 8 * (form.endsWith("le") ? k : width - 1 - k);
      out[at * width + k] = (u >>> shift) & 0xff;
    }
  });
  return out;
}

/** What an older scout-ai did to a wide chat: its turn appended in UTF-8 (the append itself). */
export function olderAppend(bytes: Uint8Array, answer = "the ánswer"): Uint8Array {
  return appendChatBytes(bytes, [{ role: "assistant", content: answer }]);
}
