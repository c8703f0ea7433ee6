/// <reference types="node" />
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

// A comment that sends the reader to a file must name a file that exists: a console file relative to
// src/ or to the commenting file, or a repository file (api/..., docs/...) relative to the repository root.
const SRC = resolve(__dirname, '../..');
const CONSOLE = resolve(SRC, '..');
const REPOSITORY = resolve(CONSOLE, '..');
const FILE_REFERENCE = /(?:\.{1,2}\/)?(?:[A-Za-z0-9_.-]+\/)+[A-Za-z0-9_-]+\.(?:tsx|ts|py|md|css)\b/g;
const COMMENT = /\/\*[\s\S]*?\*\/|(?<![:'"`\w])\/\/[^\n]*/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

export function danglingReferences(file: string, text: string): string[] {
  const comments = text.match(COMMENT) ?? [];
  const references = comments.flatMap((comment) => comment.match(FILE_REFERENCE) ?? []);
  const roots = [dirname(file), SRC, CONSOLE, REPOSITORY];
  return references.filter((ref) => !roots.some((root) => existsSync(resolve(root, ref))));
}

describe('file references in console comments', () => {
  test('a reference to a missing file is reported', () => {
    expect(danglingReferences(join(SRC, 'router/x.ts'), '/** see router/noSuchFile.tsx and lazyPage.ts */')).toEqual([
      'router/noSuchFile.tsx',
    ]);
  });

  test('every file a comment names exists', () => {
    const dangling = sourceFiles(SRC)
      .filter((file) => file !== __filename)
      .flatMap((file) =>
      danglingReferences(file, readFileSync(file, 'utf8')).map((ref) => `${file.slice(SRC.length + 1)}: ${ref}`),
    );
    expect(dangling).toEqual([]);
  });
});
