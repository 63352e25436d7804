/**
 * What a command, or the library call behind it, concludes as a whole (a
 * property has its own Verdict: holds, violated, unknown): exit 0, 1 or 2;
 * `unknown` is never a pass. One word wherever it appears (SPEC §8): the
 * library's result (`verdict`), the JSON report, and the text, which prints
 * it in capitals (PASS, FAIL, UNKNOWN) as `ci` and `merge-reports` do.
 */
export type OverallVerdict = 'pass' | 'fail' | 'unknown';
