// What a per-server descriptor derives from the registry's entry: each remote's transport,
// URL, template variables, declared headers with their placeholders and declared auth; the namespace
// form of the name; a comparable repository key. The entry is registry text, hostile: it is copied
// verbatim into the descriptor's `server`, and everything derived here is computed defensively —
// any shape accepted, strings cut, lists bounded, nothing that is not a string treated as one.
import { clip, isObject } from '../lib/index.ts';
import type { Connectability, Identity } from './descriptor-schema.ts';

type Remote = Connectability['remotes'][number];
type Header = Remote['headers'][number];

/** Bounds on what one entry can make us write. */
const MAX_REMOTES = 32;
const MAX_HEADERS = 32;
const MAX_NAMES = 16;

/** Each remote as declared, at most MAX_REMOTES of them, and how many there are. */
export function declaredRemotes(server: unknown): { remotes: Remote[]; total: number } {
  const list = isObject(server) && Array.isArray(server.remotes) ? server.remotes : [];
  return { remotes: list.slice(0, MAX_REMOTES).map((r, index) => remote(r, index)), total: list.length };
}

function remote(r: unknown, index: number): Remote {
  const o = isObject(r) ? r : {};
  const url = typeof o.url === 'string' ? clip(o.url, 4096) : null;
  const variables = url === null ? [] : braced(url);
  const headers = (Array.isArray(o.headers) ? o.headers : []).slice(0, MAX_HEADERS).map(header);
  return {
    index,
    transport: typeof o.type === 'string' ? clip(o.type, 64) : null,
    url,
    templated: variables.length > 0,
    variables,
    headers,
    declared_auth: declaredAuth(headers, Array.isArray(o.headers) ? o.headers : []),
  };
}

function header(h: unknown): Header {
  const o = isObject(h) ? h : {};
  const name = typeof o.name === 'string' ? clip(o.name, 256) : null;
  const value = typeof o.value === 'string' ? o.value : null;
  const secret = typeof o.isSecret === 'boolean' ? o.isSecret : null;
  // A value template names what a client supplies; a secret header without one is supplied whole.
  let placeholders = value === null ? [] : braced(value).map(envName).filter((n): n is string => n !== null);
  if (placeholders.length === 0 && secret === true && name !== null && value === null) placeholders = [envName(name)].filter((n): n is string => n !== null);
  return { name, required: typeof o.isRequired === 'boolean' ? o.isRequired : null, secret, has_value: value !== null, placeholders: [...new Set(placeholders)] };
}

function declaredAuth(headers: Header[], raw: unknown[]): Remote['declared_auth'] {
  const auth = headers.findIndex((h) => h.name?.toLowerCase() === 'authorization');
  if (auth >= 0) {
    const value = isObject(raw[auth]) && typeof raw[auth].value === 'string' ? raw[auth].value : '';
    const scheme = /^\s*([A-Za-z][A-Za-z0-9_-]{0,31})\s/.exec(value)?.[1] ?? null;
    return { kind: 'authorization-header', header: headers[auth]!.name, scheme };
  }
  const secret = headers.find((h) => h.secret === true);
  if (secret) return { kind: 'secret-header', header: secret.name, scheme: null };
  const required = headers.find((h) => h.required === true);
  if (required) return { kind: 'required-header', header: required.name, scheme: null };
  return { kind: 'none-declared', header: null, scheme: null };
}

/** `{name}` variables of a template, in order, each once, at most MAX_NAMES (names cut at 64). */
function braced(s: string): string[] {
  const out: string[] = [];
  for (const m of s.slice(0, 8192).matchAll(/\{([^{}]{1,64})\}/g)) {
    if (!out.includes(m[1]!)) out.push(m[1]!);
    if (out.length >= MAX_NAMES) break;
  }
  return out;
}

/** An environment-variable style name: ASCII letters and digits in upper snake case, at most 64; null when nothing is left. */
export function envName(s: string): string | null {
  const n = s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase()
    .slice(0, 64);
  if (n === '') return null;
  return /^[0-9]/.test(n) ? `_${n}` : n;
}

// The registry's publishing rules, as its documentation states them
// (https://modelcontextprotocol.io/registry/authentication): the form of a name follows from how its
// publisher authenticated. We repeat the rule; we verify nothing.
const GITHUB_RULE = 'registry rule: published only by GitHub sign-in as this user or organisation';
const DNS_RULE = 'registry rule: published only after proof of control of this domain or a parent (DNS TXT or HTTPS)';
const OTHER_RULE = 'neither form the registry documents';

/** The namespace form of a registry name (the part before the first `/`), as the registry's publishing rules define it. */
export function namespaceOf(name: string): Identity['namespace'] {
  const ns = name.slice(0, Math.max(0, name.indexOf('/')));
  const github = /^io\.github\.([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))$/.exec(ns);
  if (github) return { form: 'github', github_login: github[1]!, domain: null, rule: GITHUB_RULE, verified_by_us: false };
  const labels = ns.split('.');
  if (ns.length <= 253 && labels.length >= 2 && labels.every((l) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l)) && /[A-Za-z]/.test(labels[0]!)) {
    return { form: 'reverse-dns', github_login: null, domain: labels.reverse().join('.').toLowerCase(), rule: DNS_RULE, verified_by_us: false };
  }
  return { form: 'other', github_login: null, domain: null, rule: OTHER_RULE, verified_by_us: false };
}

/** server.repository.url as declared (cut at 4,096), or null. */
export function repositoryUrl(server: unknown): string | null {
  const repo = isObject(server) && isObject(server.repository) ? server.repository : null;
  return repo && typeof repo.url === 'string' && repo.url !== '' ? clip(repo.url, 4096) : null;
}

/** A repository URL as host + path, lowercased, without `www.`, `.git` or a trailing slash; null unless http(s). */
export function repositoryKey(url: string | null): string | null {
  if (url === null) return null;
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  const path = u.pathname.replace(/\/+$/, '').replace(/\.git$/i, '').replace(/\/+$/, '');
  if (path === '') return null; // a host alone names no repository
  return `${u.hostname.replace(/^www\./, '')}${path}`.toLowerCase();
}
