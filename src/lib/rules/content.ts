// Rule family: content labels on the text the model reads. No call breaks, but the text is how a server
// steers a model (tool poisoning): these label the changes a reviewer should read first. Each is a
// pattern over the text, so a label says "look here", not "this is malicious"; the patterns are below,
// exactly, and src/lib/README.md (RULES) repeats them in words.
import { MAX_CANONICAL_DEPTH } from '../canonical.ts';
import { hiddenCharacters } from '../hidden-characters.ts';
import { escapePointerToken, unescapePointerToken } from '../pointer-diff.ts';
import type { Tool } from '../tool.ts';
import { toolMap } from '../tool-map.ts';
import { finding, quote, type Finding, type Rule } from './finding.ts';
import { isSchema, toolPairs } from './schema-pairs.ts';

export const toolProseLinkAdded: Rule = {
  id: 'tool-prose-link-added',
  axis: 'security',
  level: 'WARN',
  rationale: 'A description or title that starts pointing somewhere (a URL, a www. host, an e-mail domain) can send the model, or the data it holds, to a place nobody reviewed.',
  check: (before, after) =>
    toolPairs(before, after).flatMap((p) => {
      const known = new Set(PROSE.flatMap(([, get]) => links(get(p.before)).map((l) => l.key)));
      const knownHosts = new Set(PROSE.flatMap(([, get]) => links(get(p.before)).map((l) => l.host)));
      return PROSE.flatMap(([path, get]): Finding[] => {
        const fresh = [...new Map(links(get(p.after)).filter((l) => !known.has(l.key)).map((l) => [l.key, l])).values()];
        if (fresh.length === 0) return [];
        const first = fresh[0]!;
        const where = first.host !== '' && knownHosts.has(first.host) ? 'on a domain it already named' : 'a domain it did not name before';
        const more = fresh.length > 1 ? ` and ${fresh.length - 1} more` : '';
        return [
          finding(toolProseLinkAdded, {
            tool: p.name,
            path,
            before: get(p.before),
            after: get(p.after),
            message: `The ${FIELD[path]} of tool ${quote(p.name)} gained a link, ${quote(first.text)} (${where})${more}: read where it sends the model.`,
          }),
        ];
      });
    }),
};

export const toolHiddenCharactersAdded: Rule = {
  id: 'tool-hidden-characters-added',
  axis: 'security',
  level: 'HIGH',
  rationale: 'Invisible, bidirectional-control, tag or control characters in text the model reads carry instructions a reviewer cannot see; ordinary text has no use for new ones.',
  check: (before, after) => {
    const was = toolMap(before);
    return [...toolMap(after).values()].flatMap((tool) => {
      const old = was.get(tool.name);
      const then = old === undefined ? new Map<string, string[]>() : hiddenByPath(old);
      return [...hiddenByPath(tool)]
        .filter(([path, chars]) => chars.length > (then.get(path)?.length ?? 0))
        .map(([path, chars]) =>
          finding(toolHiddenCharactersAdded, {
            tool: tool.name,
            path,
            before: old === undefined ? undefined : at(old, path),
            after: at(tool, path),
            message: `Tool ${quote(tool.name)} ${old === undefined ? 'arrived with' : 'gained'} ${count(chars.length - (then.get(path)?.length ?? 0), 'hidden character')} (${codePoints(chars)}) in text the model reads: a reviewer does not see them.`,
          }),
        );
    });
  },
};

export const toolDescriptionSecretMentioned: Rule = {
  id: 'tool-description-secret-mentioned',
  axis: 'security',
  level: 'WARN',
  rationale: 'A description that starts naming secrets, tokens, keys or sensitive file paths is the usual shape of a tool-poisoning attempt: it asks the model to fetch what the user never meant to share.',
  check: (before, after) =>
    toolPairs(before, after).flatMap((p) => {
      const known = new Set(secretTerms(p.before.description));
      const fresh = [...new Set(secretTerms(p.after.description))].filter((t) => !known.has(t));
      if (fresh.length === 0) return [];
      const more = fresh.length > 1 ? ` and ${fresh.length - 1} more` : '';
      return [
        finding(toolDescriptionSecretMentioned, {
          tool: p.name,
          path: '/description',
          before: p.before.description,
          after: p.after.description,
          message: `The description of tool ${quote(p.name)} now mentions ${quote(fresh[0])}${more}: read what it asks the model to reach for.`,
        }),
      ];
    }),
};

// --- links: description, title and annotations.title --------------------------------------------

type Field = '/description' | '/title' | '/annotations/title';
const PROSE: [Field, (t: Tool) => unknown][] = [
  ['/description', (t) => t.description],
  ['/title', (t) => t.title],
  ['/annotations/title', (t) => (isSchema(t.annotations) ? t.annotations.title : undefined)],
];
const FIELD: Record<Field, string> = { '/description': 'description', '/title': 'title', '/annotations/title': 'annotations title' };

// A URL is any `scheme://…` (scheme capped at 32 characters so the scan stays linear on hostile text),
// cut at whitespace, quotes and angle brackets, with trailing punctuation dropped (Markdown's `(url)`).
// Outside URLs: a bare `www.` host, and the domain of an e-mail address. Bare domains without `www.`
// are not links here: `setup.py` and `README.md` look exactly like domains.
const URL_RE = /\b[a-z][a-z0-9+.-]{0,31}:\/\/[^\s<>"'`]+/gi;
const WWW = /\bwww\.[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:[/?#][^\s<>"'`]*)?/gi;
const EMAIL = /@((?:[a-z0-9-]+\.)+[a-z]{2,})\b/gi;
const TRAILING = /[.,;:!?)\]}*_]+$/;

interface Link {
  text: string;
  /** What makes two links the same: the WHATWG-normalised URL (host lowercased, IDN as punycode). */
  key: string;
  host: string;
}

function links(text: unknown): Link[] {
  if (typeof text !== 'string') return [];
  const out: Link[] = [];
  const rest = text.replace(URL_RE, (raw) => {
    const url = raw.replace(TRAILING, '');
    out.push(parsed(url, url));
    return ' ';
  });
  for (const m of rest.matchAll(WWW)) out.push(parsed(m[0].replace(TRAILING, ''), `http://${m[0].replace(TRAILING, '')}`));
  for (const m of rest.matchAll(EMAIL)) out.push({ text: m[0], key: m[0].toLowerCase(), host: m[1]!.toLowerCase() });
  return out;
}

function parsed(text: string, href: string): Link {
  try {
    const u = new URL(href);
    return { text, key: /^www\./i.test(text) ? `${u.host}${u.pathname}${u.search}${u.hash}` : u.href, host: u.hostname };
  } catch {
    return { text, key: text, host: '' };
  }
}

// --- hidden characters: every member name and string value of the tool -----------------------

/** Pointer → hidden characters in the member name ending there and in its string value (none: absent). */
function hiddenByPath(tool: Tool): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (path: string, text: string) => {
    const chars = hiddenCharacters(text);
    if (chars.length > 0) out.set(path, [...(out.get(path) ?? []), ...chars]);
  };
  const walk = (v: unknown, path: string, depth: number): void => {
    if (typeof v === 'string') return add(path, v);
    if (typeof v !== 'object' || v === null || depth >= MAX_CANONICAL_DEPTH) return;
    for (const [k, x] of Object.entries(v)) {
      const p = `${path}/${escapePointerToken(k)}`;
      add(p, k);
      walk(x, p, depth + 1);
    }
  };
  walk(tool, '', 0);
  return out;
}

/** The value at a pointer built by hiddenByPath (tokens escaped as RFC 6901). */
function at(tool: Tool, path: string): unknown {
  let v: unknown = tool;
  for (const token of path.split('/').slice(1)) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[unescapePointerToken(token)];
  }
  return v;
}

function codePoints(chars: string[]): string {
  const shown = [...new Set(chars)].slice(0, 3).map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
  return new Set(chars).size > 3 ? `${shown.join(', ')}, …` : shown.join(', ');
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

// --- secrets, tokens, keys, file paths in a description ---------------------------------------

// Words, matched case-insensitively and compared singular, lowercase, with `_`/`-`/spaces as one space
// ("API_KEYS" and "api key" are one term). Plain "key" and "token" are not terms: schemas are full of
// "the key of the object" and "pagination token".
// Compounds come first so that "secret key" is one term, not "secret".
const WORDS = /\b(?:(?:private|secret|api|access|ssh|signing|encryption)[\s_-]?keys?|(?:access|auth|authentication|bearer|api|refresh|session|oauth|id|personal[\s_-]?access)[\s_-]?tokens?|seed[\s_-]?phrases?|secrets?|passwords?|passphrases?|passwd|credentials?|mnemonics?|jwts?)\b/gi;
// Paths, compared as written: home-relative (`~/`, `$HOME/`, `%USERPROFILE%\`); absolute under
// /etc, /home, /Users, /root, /var, /proc, /private, /tmp (not when part of a URL or a longer path);
// a Windows drive (`C:\`); dotfiles that hold credentials; SSH private key file names.
const PATHS = /(?:~|\$HOME|%USERPROFILE%)[/\\][^\s"'`<>)\]]*|(?<![\w.~/-])\/(?:etc|home|Users|root|var|proc|private|tmp)\/[^\s"'`<>)\]]*|\b[A-Za-z]:\\[^\s"'`<>)\]]*|(?<![\w.-])\.(?:env|ssh|aws|gnupg|netrc|npmrc|pypirc|pgpass|git-credentials|kube|docker)\b[^\s"'`<>)\]]*|\bid_(?:rsa|dsa|ecdsa|ed25519)\b/g;

/** The terms a description names, in text order; a word inside a path ("passwd" in /etc/passwd) is the path's. */
function secretTerms(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  const paths = [...text.matchAll(PATHS)].map((m) => ({ at: m.index, end: m.index + m[0].length, term: m[0].replace(/[.,;:!?]+$/, '') }));
  const words = [...text.matchAll(WORDS)]
    .filter((m) => !paths.some((p) => m.index >= p.at && m.index < p.end))
    .map((m) => ({ at: m.index, term: m[0].toLowerCase().replace(/[\s_-]+/g, ' ').replace(/s$/, '') }));
  return [...paths, ...words].sort((a, b) => a.at - b.at).map((t) => t.term);
}
