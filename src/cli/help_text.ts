/**
 * Help text shared by several commands.
 *
 * @module
 */

/**
 * The heading of a help's examples when they use the repository's
 * `fixtures/` (the binary alone has none): said once per help, as the root
 * help says it (R128-9).
 */
export const FIXTURE_EXAMPLES = "Examples (from the repository root; they use its fixtures/):";
