import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const ROOT = join(__dirname, '..');
const DOCUMENTS = ['README.md', 'k8s/README.md'];

/** Markdown outside fenced code blocks: a `#` line inside one (a Python comment, say) is no heading. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** The anchors GitHub gives a document's headings: lower-cased, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(document: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose(readFileSync(join(ROOT, document), 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1].replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Every `[text](target#anchor)` link of a document to itself or another of the documents, as `document#anchor`. */
function links(document: string): { link: string; target: string; anchor: string }[] {
  const found = [];
  for (const line of prose(readFileSync(join(ROOT, document), 'utf8'))) {
    for (const [link, path, anchor] of line.matchAll(/\]\(([^)#\s]*)#([^)\s]+)\)/g)) {
      const target = path === '' ? document : relative(ROOT, normalize(join(ROOT, dirname(document), path)));
      if (DOCUMENTS.includes(target)) found.push({ link, target, anchor });
    }
  }
  return found;
}

describe('README anchors', () => {
  it('sees the headings and links it checks', () => {
    expect(anchors('README.md')).toContain('try-it-locally');
    expect(links('README.md').length).toBeGreaterThan(10);
  });

  it.each(DOCUMENTS)('every #anchor link in %s names a heading of the document it points at', (document) => {
    const broken = links(document)
      .filter(({ target, anchor }) => !anchors(target).has(anchor))
      .map(({ link }) => link);
    expect(broken).toEqual([]);
  });
});
