// Every link into docs/ resolves: a path to a Markdown file names a file that exists, and its
// #anchor names a heading of that file, as GitHub makes anchors from headings. Checked in the code
// (comments and messages name a doc's path with its anchor) and in every Markdown file of the repository
// (`[text](../testing.md#chaos)`, `[text](#a-passs-limits)`), so a renamed heading or file cannot
// leave a reader at a dead end.

import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchor(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings (a repeated one gets -1, -2, ... as on GitHub). */
function anchorsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = headingAnchor(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The links a file makes: to a repository path (from the root) and an optional anchor. */
function linksIn(file: string, text: string): Array<{ target: string; anchor?: string; line: number }> {
  const out: Array<{ target: string; anchor?: string; line: number }> = [];
  const lines = text.split('\n');
  const isMarkdown = file.endsWith('.md');
  lines.forEach((line, i) => {
    // A path into docs/ written out, anywhere (code comments and messages, prose).
    for (const m of line.matchAll(/(?<![\w/.-])(?:\.\.\/)*(docs\/[\w./-]+?\.md)(?:#([\w-]+))?(?![\w/-])/g)) {
      out.push({ target: m[1], ...(m[2] ? { anchor: m[2] } : {}), line: i + 1 });
    }
    if (!isMarkdown) return;
    // Markdown links, relative to the file (or within it).
    for (const m of line.matchAll(/\]\((?!https?:|mailto:)([^)\s#]*)(?:#([^)\s]+))?\)/g)) {
      const path = m[1];
      if (path !== '' && !path.endsWith('.md')) continue;
      const target = path === '' ? file : normalize(join(dirname(file), path));
      out.push({ target, ...(m[2] ? { anchor: m[2] } : {}), line: i + 1 });
    }
  });
  return out;
}

function trackedFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return listed
    .split('\n')
    .filter((f) => /\.(ts|js|mjs|md|sh|go|yaml)$/.test(f) || f === 'Makefile')
    .filter((f) => !f.startsWith('test/fixtures/') && existsSync(join(ROOT, f)));
}

describe('links into docs/ resolve (files and headings)', () => {
  it("a heading's anchor is GitHub's", () => {
    expect(headingAnchor("A pass's limits")).to.equal('a-passs-limits');
    expect(headingAnchor("Marathon's `/v2/deployments`")).to.equal('marathons-v2deployments');
    expect(headingAnchor("The engine's contract")).to.equal('the-engines-contract');
    expect([...anchorsOf('# Top\n## Notes\n```\n# not a heading\n```\n## Notes\n')]).to.deep.equal([
      'top',
      'notes',
      'notes-1',
    ]);
  });

  it('finds the links of code and of Markdown', () => {
    expect(linksIn('src/x.ts', '// see docs/semantics/plans.md#the-gate-specplan and docs/testing.md.')).to.deep.equal([
      { target: 'docs/semantics/plans.md', anchor: 'the-gate-specplan', line: 1 },
      { target: 'docs/testing.md', line: 1 },
    ]);
    expect(
      linksIn(
        'docs/semantics/node-roll.md',
        'as [testing](../testing.md#chaos) and [here](#zones), [web](https://x.y/a.md#b)',
      ),
    ).to.deep.equal([
      { target: 'docs/testing.md', anchor: 'chaos', line: 1 },
      { target: 'docs/semantics/node-roll.md', anchor: 'zones', line: 1 },
    ]);
  });

  it('every link from code and docs names a file that exists and a heading it has', () => {
    const anchors = new Map<string, Set<string>>();
    const broken: string[] = [];
    for (const file of trackedFiles()) {
      for (const link of linksIn(file, readFileSync(join(ROOT, file), 'utf8'))) {
        const where = `${file}:${link.line}`;
        const path = join(ROOT, link.target);
        if (relative(ROOT, path).startsWith('..') || !existsSync(path)) {
          broken.push(`${where}: ${link.target} does not exist`);
          continue;
        }
        if (link.anchor === undefined) continue;
        if (!anchors.has(link.target)) anchors.set(link.target, anchorsOf(readFileSync(path, 'utf8')));
        if (!anchors.get(link.target)!.has(link.anchor))
          broken.push(`${where}: ${link.target} has no heading #${link.anchor}`);
      }
    }
    expect(broken).to.deep.equal([]);
  });
});
