/**
 * The text a git merge leaves in a chat when two branches each added a turn:
 * `<<<<<<< HEAD`, our turn, `=======`, theirs, `>>>>>>> feature`.
 *
 * @module
 */

/** A merge's conflict of two added turns, from the `<<<<<<<` line on. */
export const CONFLICTED_TURNS = [
  "<<<<<<< HEAD",
  "user: ours question",
  "",
  "assistant:",
  "",
  "ours answer",
  "=======",
  "user: theirs question",
  "",
  "assistant:",
  "",
  "theirs answer",
  ">>>>>>> feature",
  "",
].join("\n");
