// JUnit XML, the dialect Jenkins, GitLab and GitHub's test reporters read
// (the schema Jenkins validates against: testsuites > testsuite > testcase,
// with <failure>, <error> and a bare <skipped/>). A failure is a divergence
// or a violation; an error is a case the harness could not judge (unknown).
import { countCases, type CiResult, type TestCase, type TestSuite } from './testCases.ts';

/** Whether XML 1.0 can carry a code point at all (not: control characters other than tab, newline, return; surrogates; U+FFFE, U+FFFF). */
function xmlChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000;
}

export function xmlText(text: string): string {
  let clean = '';
  for (const ch of text) clean += xmlChar(ch.codePointAt(0) ?? 0) ? ch : '\uFFFD';
  return clean.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function xmlAttribute(text: string): string {
  return xmlText(text).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

function testcase(c: TestCase): string {
  const head = `    <testcase name="${xmlAttribute(c.name)}" classname="${xmlAttribute(c.classname)}" time="${seconds(c.timeMs ?? 0)}"`;
  const body = [c.message ?? '', c.details ?? ''].filter((s) => s !== '').join('\n\n');
  switch (c.status) {
    case 'pass':
      return `${head}/>`;
    case 'skipped':
      // A bare element: Jenkins' schema gives <skipped> no attributes.
      return `${head}>\n      <skipped/>${c.message ? `\n      <system-out>${xmlText(c.message)}</system-out>` : ''}\n    </testcase>`;
    case 'fail':
      return `${head}>\n      <failure message="${xmlAttribute(c.message ?? 'failed')}" type="failure">${xmlText(body)}</failure>\n    </testcase>`;
    case 'unknown':
      return `${head}>\n      <error message="${xmlAttribute(c.message ?? 'unknown')}" type="unknown">${xmlText(body)}</error>\n    </testcase>`;
  }
}

function testsuite(s: TestSuite, id: number, timestamp: string): string {
  const n = countCases(s.cases);
  const props = Object.entries(s.properties ?? {});
  const lines = [
    `  <testsuite name="${xmlAttribute(s.name)}" tests="${n.tests}" failures="${n.failures}" ` +
      `errors="${n.errors}" skipped="${n.skipped}" time="${seconds(n.timeMs)}" ` +
      `timestamp="${timestamp}" id="${id}">`,
  ];
  if (props.length > 0) {
    lines.push('    <properties>');
    for (const [name, value] of props) lines.push(`      <property name="${xmlAttribute(name)}" value="${xmlAttribute(value)}"/>`);
    lines.push('    </properties>');
  }
  for (const c of s.cases) lines.push(testcase(c));
  lines.push('  </testsuite>');
  return lines.join('\n');
}

/** One JUnit document for the results of one or several commands. */
export function junitXml(results: readonly CiResult[], now: Date = new Date()): string {
  const suites = results.flatMap((r) => r.suites);
  const all = countCases(suites.flatMap((s) => s.cases));
  // Without a zone and fraction: the form every reader accepts.
  const timestamp = now.toISOString().slice(0, 19);
  const name = results.map((r) => r.title).join('; ') || 'streamjoin';
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlAttribute(name)}" tests="${all.tests}" failures="${all.failures}" errors="${all.errors}" time="${seconds(all.timeMs)}">`,
    ...suites.map((s, i) => testsuite(s, i, timestamp)),
    '</testsuites>',
    '',
  ].join('\n');
}
