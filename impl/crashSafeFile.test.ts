import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bodyProblem, checksummedFile, fileStemOf, keyOfFileStem, replaceFile, sha256Hex, type ReplacePoint } from './crashSafeFile.ts';

const directories: string[] = [];
function freshDirectory(): string {
  const d = mkdtempSync(join(tmpdir(), 'streamjoin-crashsafe-'));
  directories.push(d);
  return d;
}
afterEach(() => {
  for (const d of directories.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('replaceFile (temporary file, fsync, rename, directory fsync)', () => {
  it('replaces the file, passing each crash point in order, with the old file intact until the rename', () => {
    const path = join(freshDirectory(), 'doc');
    writeFileSync(path, 'old');
    const seen: [ReplacePoint, string][] = [];
    replaceFile(path, Buffer.from('the new contents'), (point, at) => {
      seen.push([point, at]);
      // Before the rename a reader still sees the whole old file.
      expect(readFileSync(path, 'utf8')).toBe(point === 'renamed' ? 'the new contents' : 'old');
    });
    expect(seen).toEqual([
      ['tmp-partial', `${path}.tmp`],
      ['tmp-synced', `${path}.tmp`],
      ['renamed', path],
    ]);
    expect(readFileSync(path, 'utf8')).toBe('the new contents');
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });

  it('on an error, removes its temporary file, throws on, and leaves the old file', () => {
    const path = join(freshDirectory(), 'doc');
    writeFileSync(path, 'old');
    expect(() =>
      replaceFile(path, Buffer.from('new'), (point) => {
        if (point === 'tmp-synced') throw new Error('disk gone');
      }),
    ).toThrow('disk gone');
    expect(readFileSync(path, 'utf8')).toBe('old');
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });
});

describe('checksummed files', () => {
  it('a header line with the fields, the body length and SHA-256, then the body; bodyProblem finds every change to the body', () => {
    const body = Buffer.from('{"a":1}');
    const bytes = checksummedFile({ format: 'f@1', key: 'k' }, body);
    const [header, rest] = Buffer.from(bytes).toString('utf8').split('\n');
    expect(JSON.parse(header as string)).toEqual({ format: 'f@1', key: 'k', bytes: 7, sha256: sha256Hex(body) });
    expect(rest).toBe('{"a":1}');
    expect(bodyProblem(body, 7, sha256Hex(body))).toBeUndefined();
    expect(bodyProblem(body.subarray(0, 5), 7, sha256Hex(body))).toMatchObject({ kind: 'truncated' });
    expect(bodyProblem(Buffer.concat([body, Buffer.from('x')]), 7, sha256Hex(body))).toMatchObject({ kind: 'malformed' });
    expect(bodyProblem(Buffer.from('{"a":2}'), 7, sha256Hex(body))).toMatchObject({ kind: 'checksum' });
  });

  it('file stems: any key gives a name of safe characters; short keys give back their key', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 150 }), (key) => {
        const stem = fileStemOf(key);
        expect(stem).toMatch(/^[kh][0-9a-f]*$/);
        expect(stem.length).toBeLessThanOrEqual(201);
        if (stem.startsWith('k')) expect(keyOfFileStem(stem)).toBe(key);
        else expect(keyOfFileStem(stem)).toBeUndefined();
      }),
    );
  });
});
