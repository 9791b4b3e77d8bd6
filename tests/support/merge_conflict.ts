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

/**
 * A chat that discusses a conflict: the markers are text of one message
 * (no role header between them), as a user pastes them (R90-2).
 */
export const DISCUSSED_CONFLICT = [
  "user:",
  "",
  "After git pull my config.ini reads like this; which side should I keep?",
  "",
  "<<<<<<< HEAD",
  "port = 8080",
  "=======",
  "port = 9090",
  ">>>>>>> origin/main",
  "",
].join("\n");
