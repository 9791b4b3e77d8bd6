/**
 * Hex digests (node:crypto). `md5hex` is used where Scout formats require MD5
 * (job names, lock names, truncation markers); `sha256hex` everywhere we choose.
 *
 * @module
 */
import { createHash } from "node:crypto";

/**
 * Lowercase hex MD5 of a string (UTF-8) or bytes.
 *
 * @param data input
 * @returns 32 hex characters
 */
export function md5hex(data: string | Uint8Array): string {
  return createHash("md5").update(data).digest("hex");
}

/**
 * Lowercase hex SHA-256 of a string (UTF-8) or bytes.
 *
 * @param data input
 * @returns 64 hex characters
 */
export function sha256hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
