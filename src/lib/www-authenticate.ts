// WWW-Authenticate challenges (RFC 9110 §11.6.1; methodology v2, "Auth"). One field may hold several
// challenges separated by commas, and a quoted realm may itself contain commas, so splitting on commas
// or reading only the first challenge (as SDK v1's client does) loses the Bearer challenge of
// `Basic realm="a, b", Bearer resource_metadata="…"`. The npm parsers looked at do not fit:
// `auth-header` supports one challenge per field by design (its README), `http-auth-utils` and
// `www-authenticate` parse a single challenge of known schemes only. Hence this small parser of the
// RFC grammar:
//
//   WWW-Authenticate = [ challenge *( OWS "," OWS challenge ) ]     (empty list elements allowed, §5.6.1)
//   challenge  = auth-scheme [ 1*SP ( token68 / [ auth-param *( OWS "," OWS auth-param ) ] ) ]
//   auth-param = token BWS "=" BWS ( token / quoted-string )
//   token68    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
//
// After a comma, `token BWS "="` continues the current challenge's parameters; a token followed by
// anything else starts a new challenge. Scheme and parameter names are case-insensitive and returned
// lower-cased; quoted values are unescaped. The text is hostile: parsing stops at the first syntax
// error (the challenges read whole before it are kept, with the error), and counts are bounded.

export interface Challenge {
  /** The auth-scheme, lower-cased (`bearer`, `basic`, …). */
  scheme: string;
  /** The token68 form's value, or null. */
  token68: string | null;
  /** auth-params by lower-cased name (the first of a repeated name wins). A null-prototype object. */
  params: Record<string, string>;
}

export interface ParsedChallenges {
  challenges: Challenge[];
  /** Why parsing stopped early, or null when the whole value was read. */
  error: string | null;
}

const MAX_CHALLENGES = 32;
const MAX_PARAMS = 64;
const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*/;

/** Every challenge in a WWW-Authenticate value (several header lines: join them with ", " first, RFC 9110 §5.3). */
export function parseWwwAuthenticate(value: string): ParsedChallenges {
  const challenges: Challenge[] = [];
  let i = 0;
  const n = value.length;
  const ows = () => {
    while (i < n && (value[i] === ' ' || value[i] === '\t')) i++;
  };
  const token = (): string | null => {
    const start = i;
    while (i < n && TCHAR.test(value[i]!)) i++;
    return i > start ? value.slice(start, i) : null;
  };
  const quoted = (): string | null => {
    if (value[i] !== '"') return null;
    let out = '';
    for (i++; i < n; i++) {
      const c = value[i]!;
      if (c === '"') {
        i++;
        return out;
      }
      if (c === '\\') {
        i++;
        if (i >= n) return null;
        out += value[i];
      } else {
        out += c;
      }
    }
    return null; // unterminated
  };
  /** An auth-param at i, or null (i unchanged) when the text there is not one. */
  const param = (): [string, string] | null => {
    const start = i;
    const name = token();
    if (name !== null) {
      ows();
      if (value[i] === '=') {
        i++;
        ows();
        const v = value[i] === '"' ? quoted() : token();
        if (v !== null) return [name.toLowerCase(), v];
      }
    }
    i = start;
    return null;
  };
  const fail = (why: string): ParsedChallenges => ({ challenges, error: `${why} at character ${i}` });
  const listSeparator = () => {
    // OWS "," OWS, with empty list elements tolerated.
    ows();
    while (value[i] === ',') {
      i++;
      ows();
    }
  };

  listSeparator();
  while (i < n) {
    if (challenges.length >= MAX_CHALLENGES) return fail(`more than ${MAX_CHALLENGES} challenges`);
    const scheme = token();
    if (scheme === null) return fail('expected an auth-scheme');
    // Pushed only once read whole: a challenge cut by a syntax error is dropped, never half-kept.
    const c: Challenge = { scheme: scheme.toLowerCase(), token68: null, params: Object.create(null) as Record<string, string> };
    if (i < n && value[i] !== ' ' && value[i] !== ',') return fail('expected a space or a comma after the auth-scheme');
    ows();
    const first = param();
    if (first) {
      let count = 0;
      let p: [string, string] | null = first;
      while (p) {
        if (++count > MAX_PARAMS) return fail(`more than ${MAX_PARAMS} parameters`);
        if (!(p[0] in c.params)) c.params[p[0]] = p[1];
        ows();
        if (i >= n) break;
        if (value[i] !== ',') return fail('expected a comma between parameters');
        listSeparator();
        // Not a parameter after the comma: a new challenge starts there (the outer loop reads it).
        p = i < n ? param() : null;
      }
    } else if (i < n && value[i] !== ',') {
      const m = TOKEN68.exec(value.slice(i));
      if (!m) return fail('expected a token68 or parameters');
      c.token68 = m[0];
      i += m[0].length;
      ows();
      if (i < n && value[i] !== ',') return fail('expected a comma after the token68');
    }
    challenges.push(c);
    listSeparator();
  }
  return { challenges, error: null };
}

/** The first `resource_metadata` parameter (RFC 9728 §5.1), a Bearer challenge's before any other's; null when none. */
export function resourceMetadataHint(challenges: readonly Challenge[]): string | null {
  const ordered = [...challenges.filter((c) => c.scheme === 'bearer'), ...challenges.filter((c) => c.scheme !== 'bearer')];
  for (const c of ordered) {
    const v = c.params.resource_metadata;
    if (typeof v === 'string') return v;
  }
  return null;
}
