// The header every `--json` report starts with: what the report is, and
// which streamjoin and which spec produced it, so a CI dashboard can tell
// reports apart. The version lookup itself is library code
// (conformance/report/versions.ts), shared with the counterexample files.
// Direct imports, not spec/index.ts: `streamjoin help` and `--version` load
// this module and nothing heavy (mainHelp.ts).
import { SPEC_VERSION } from '../spec/constants.ts';
import { STREAMJOIN_VERSION } from '../conformance/report/versions.ts';

export { STREAMJOIN_VERSION };

/** The fields every JSON report begins with. `format` is `streamjoin/<kind>-report@<n>`. */
export interface ReportHeader {
  readonly format: string;
  readonly streamjoin: string;
  readonly spec: string;
}

export function reportHeader(format: string): ReportHeader {
  return { format, streamjoin: STREAMJOIN_VERSION, spec: SPEC_VERSION };
}

export const ERROR_REPORT_FORMAT = 'streamjoin/error-report@1';

/**
 * The `--json` error report (spec/schemas/reports/error-report.schema.json): what a command prints on stdout
 * when it ends without a report of its own; `text` is the line it printed on stderr.
 */
export function errorReport(
  verdict: 'bad-input' | 'internal-error' | 'interrupted',
  exitCode: number,
  error: { readonly code: string | null; readonly where: string | null; readonly message: string },
  text: string,
): string {
  return JSON.stringify({ ...reportHeader(ERROR_REPORT_FORMAT), verdict, exitCode, error: { ...error, text } });
}

/** The error report of an internal error whose stderr line is `text`. */
export function errorReportText(text: string): string {
  return errorReport('internal-error', 255, { code: null, where: null, message: text.replace(/^streamjoin: internal error: /, '') }, text);
}
