/**
 * Decoder of the AWS event stream framing (`application/vnd.amazon.eventstream`)
 * that Bedrock's streaming APIs answer with: each message is a 12-byte
 * prelude (total length, headers length, prelude CRC32), typed headers, the
 * payload and a CRC32 of the whole message. Both CRCs are checked.
 *
 * Written here rather than taken from `@smithy/eventstream-codec`: the framing
 * is fixed and small (this file), while that package pulls in `@smithy/core`
 * (~8 MB unpacked) for a binary that loads a backend only when it is used.
 *
 * @module
 */
import { crc32 } from "node:zlib";
import { responseError } from "../errors.ts";

/** One decoded event-stream message. */
export interface EventStreamMessage {
  /** Headers (`:event-type`, `:message-type`, `:content-type`, `:exception-type`…). */
  headers: Record<string, string | number | boolean | Uint8Array>;
  /** The payload bytes. */
  payload: Uint8Array;
}

const dec = new TextDecoder();

function readHeaders(view: DataView, bytes: Uint8Array, start: number, end: number) {
  const headers: EventStreamMessage["headers"] = {};
  let p = start;
  while (p < end) {
    const nameLen = view.getUint8(p);
    const name = dec.decode(bytes.subarray(p + 1, p + 1 + nameLen));
    p += 1 + nameLen;
    const type = view.getUint8(p++);
    switch (type) {
      case 0:
      case 1:
        headers[name] = type === 0;
        break;
      case 2:
        headers[name] = view.getInt8(p);
        p += 1;
        break;
      case 3:
        headers[name] = view.getInt16(p);
        p += 2;
        break;
      case 4:
        headers[name] = view.getInt32(p);
        p += 4;
        break;
      case 5:
      case 8:
        headers[name] = Number(view.getBigInt64(p));
        p += 8;
        break;
      case 6:
      case 7: {
        const len = view.getUint16(p);
        const value = bytes.subarray(p + 2, p + 2 + len);
        headers[name] = type === 7 ? dec.decode(value) : value.slice();
        p += 2 + len;
        break;
      }
      case 9:
        headers[name] = bytes.slice(p, p + 16);
        p += 16;
        break;
      default:
        throw responseError("bedrock", `Unknown event-stream header type ${type}`);
    }
  }
  return headers;
}

/**
 * Decodes one complete message.
 *
 * @param bytes exactly one message
 * @returns headers and payload
 * @throws ScoutError `provider_response` on a length or CRC mismatch
 */
export function decodeEventMessage(bytes: Uint8Array): EventStreamMessage {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const total = view.getUint32(0);
  const headersLen = view.getUint32(4);
  if (total !== bytes.length || headersLen + 16 > total) {
    throw responseError("bedrock", `Bad event-stream lengths (${total}, ${headersLen})`);
  }
  if (crc32(bytes.subarray(0, 8)) !== view.getUint32(8)) {
    throw responseError("bedrock", "Event-stream prelude CRC mismatch");
  }
  if (crc32(bytes.subarray(0, total - 4)) !== view.getUint32(total - 4)) {
    throw responseError("bedrock", "Event-stream message CRC mismatch");
  }
  return {
    headers: readHeaders(view, bytes, 12, 12 + headersLen),
    payload: bytes.slice(12 + headersLen, total - 4),
  };
}

/**
 * Splits a byte stream into event-stream messages as they complete.
 *
 * @param body the response body
 * @yields each message
 * @throws ScoutError `provider_response` on a malformed frame
 */
export async function* eventStreamMessages(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<EventStreamMessage> {
  let buf = new Uint8Array(0);
  for await (const chunk of body) {
    const next = new Uint8Array(buf.length + chunk.length);
    next.set(buf);
    next.set(chunk, buf.length);
    buf = next;
    while (buf.length >= 12) {
      const total = new DataView(buf.buffer, buf.byteOffset).getUint32(0);
      if (total < 16) throw responseError("bedrock", `Bad event-stream length ${total}`);
      if (buf.length < total) break;
      yield decodeEventMessage(buf.subarray(0, total));
      buf = buf.slice(total);
    }
  }
  // bytes left over: the stream was cut inside a message; the caller sees no
  // final event and reports a (retryable) cut stream
}
