// Links from a report to the rules of SPEC.md: the anchor GitHub gives each
// heading, and where SPEC.md is. By default that is the published repository
// at this version's tag, so a link works wherever the file is read (attached
// to an issue, mailed, opened from another machine); `file` links to this
// installation's copy instead, relative to where the report is written.
import { dirname, join, relative, sep } from 'node:path';
import { packagePath } from '../../spec/index.ts';
import { RULE_TITLES } from './rules.ts';
import { REPOSITORY_URL, STREAMJOIN_VERSION } from './versions.ts';

/** Where SPEC.md is in this installation. */
export const SPEC_PATH = packagePath('spec', 'SPEC.md');

/**
 * The anchor GitHub derives from a heading's text: lower case; every
 * character that is not a letter, a digit, a space, `-` or `_` dropped;
 * each space then a `-` (so `J6 — Retraction` gives `j6--retraction`: the
 * dash goes, the two spaces around it stay). Duplicates are numbered by
 * `anchorsOf`.
 */
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor of a Markdown document's headings, in order, duplicates suffixed `-1`, `-2` as GitHub does. */
export function anchorsOf(markdown: string): string[] {
  const seen = new Map<string, number>();
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = githubSlug(m[1] ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.push(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The heading of a rule or section id as SPEC.md writes it (`### J6 — Retraction`, `## §7 Conformance semantics`). */
export function ruleHeading(id: string): string | undefined {
  const title = RULE_TITLES[id];
  if (title === undefined) return undefined;
  return id.startsWith('§') ? `${id} ${title}` : `${id} — ${title}`;
}

/** The section the named properties are defined in (SPEC §6). */
export const PROPERTIES_HEADING = '§6 Properties and the explorer';

/** The anchor of a rule id (`J6`, `C9`, `§7`) or of a property name (`ExactlyOnce`: §6), in SPEC.md. */
export function specAnchor(idOrProperty: string): string {
  const heading = ruleHeading(idOrProperty) ?? PROPERTIES_HEADING;
  return githubSlug(heading);
}

/** A rule or property with its title and where SPEC.md defines it. */
export interface RuleLink {
  /** The rule id or property name. */
  readonly id: string;
  /** Its title in SPEC.md. */
  readonly title: string;
  /** The anchor of its heading in SPEC.md. */
  readonly anchor: string;
}

export function ruleLink(id: string): RuleLink {
  return { id, title: RULE_TITLES[id] ?? (id.startsWith('§') ? id : `property ${id} (SPEC §6)`), anchor: specAnchor(id) };
}

/**
 * Where a report's links to the spec point: a base URL under which
 * `spec/SPEC.md` is found (a repository at a tag, a mirror), or `file` for
 * this installation's SPEC.md, relative to the report.
 */
export type LinkBase = string;

/** The default link base: the published repository at this version's tag (`v0.1.0`). */
export const DEFAULT_LINK_BASE: LinkBase = `${REPOSITORY_URL}/blob/v${STREAMJOIN_VERSION}`;

/** The problem with a `--link-base` value, or undefined: `file`, or an absolute http(s) URL. */
export function linkBaseProblem(base: string): string | undefined {
  if (base === 'file') return undefined;
  try {
    const url = new URL(base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? undefined : `expected an http(s) URL or "file", got "${base}"`;
  } catch {
    return `expected an http(s) URL or "file", got "${base}"`;
  }
}

/** SPEC.md as a Markdown link target: under the link base, or with `file` relative to `fromDir` (`/`-separated). */
export function specHref(linkBase: LinkBase = DEFAULT_LINK_BASE, fromDir?: string): string {
  if (linkBase !== 'file') return `${linkBase.replace(/\/+$/, '')}/spec/SPEC.md`;
  if (fromDir === undefined) return 'spec/SPEC.md';
  return relative(dirname(join(fromDir, 'x')), SPEC_PATH)
    .split(sep)
    .join('/');
}
