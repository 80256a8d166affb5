// Hostile registry text for the feed property tests (test/site/feeds.test.ts and the Chromium reader
// in test/browser/feed-reader.test.ts): arbitrary strings weighted towards what breaks XML or HTML.
import fc from 'fast-check';
import type { ChangeView, FindingView } from '../../src/loader/load-archive.ts';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i));
/** Every C0 control, DEL and every C1 control. */
export const CONTROLS = [...range(0x00, 0x1f), ...range(0x7f, 0x9f)];
export const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff'];
export const BIDI = ['\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u061c'];
/** Markup a naive reader would run if it got it as HTML (each sets window.__ran when it runs). */
export const PAYLOADS = [
  '<img src=x onerror="window.__ran=1">',
  '<svg onload="window.__ran=2"></svg>',
  '<svg><animate onbegin="window.__ran=3" attributeName=x dur=1s></svg>',
  '<script>window.__ran=4</script>',
  '<iframe srcdoc="<script>parent.__ran=5</script>"></iframe>',
  '<details open ontoggle="window.__ran=6"></details>',
  '<video><source onerror="window.__ran=7"></video>',
  '<body onload="window.__ran=8">',
  '<input autofocus onfocus="window.__ran=9">',
  '<object data="javascript:window.__ran=10"></object>',
  '<a href="javascript:window.__ran=11">x</a>',
  '<img src=x onerror=window.__ran=12 ',
  '&lt;img src=x onerror="window.__ran=13"&gt;',
  '&#60;img src=x onerror=window.__ran=14&#62;',
  '<![CDATA[<img src=x onerror=window.__ran=15>]]>',
];
const PIECES = [...CONTROLS, ...LONE_SURROGATES, ...BIDI, ...PAYLOADS, ']]>', '<![CDATA[', '&', '&amp;', '<', '>', '"', "'", '\r\n', '\ufffe', '\uffff', '\ufeff', '\u{1f600}', '\u2028', '\u2029'];

/** Any string (any code unit, lone surrogates included), or one assembled from the pieces above. */
export const hostileText = (maxLength = 120): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: Math.ceil(maxLength / 8) }),
  );

const finding = (text: fc.Arbitrary<string>): fc.Arbitrary<FindingView> =>
  fc.record({
    rule: text,
    axis: fc.constantFrom('compatibility', 'security'),
    level: fc.constantFrom('ERR', 'WARN', 'INFO', 'HIGH'),
    tool: text,
    path: text,
    before: fc.constant(null),
    after: fc.constant(null),
    fingerprint: fc.constant('0123456789ab'),
    message: text,
  });

/** A change whose every text field (server name, tool names, finding text, diff problem) is hostile. */
export const hostileChange = (text: fc.Arbitrary<string> = hostileText()): fc.Arbitrary<ChangeView> =>
  fc
    .record({
      target: text,
      added: fc.array(text, { maxLength: 3 }),
      removed: fc.array(text, { maxLength: 3 }),
      changed: fc.array(text, { maxLength: 3 }),
      returned: fc.array(text, { maxLength: 2 }),
      withDiff: fc.boolean(),
      diffProblem: text,
      findings: fc.array(finding(text), { maxLength: 3 }),
      compatibility: fc.constantFrom('ERR', 'WARN', 'INFO', null),
      security: fc.constantFrom('HIGH', 'WARN', null),
    })
    .map((r) => ({
      id: '2026-01-01-bbbbbbbbbbbb',
      target: r.target,
      slug: 'io.github.x_y',
      day: '2026-01-01',
      observedAt: '2026-01-01T03:15:00Z',
      runId: 'run',
      beforeSha256: 'a'.repeat(64),
      afterSha256: 'b'.repeat(64),
      beforeBody: null,
      afterBody: null,
      revert: false,
      compatibility: r.compatibility as ChangeView['compatibility'],
      security: r.security as ChangeView['security'],
      findings: r.findings,
      diff: r.withDiff
        ? { added: r.added, removed: r.removed, changed: r.changed.map((name) => ({ name, surfaces: [], input: [], output: [] })), returned: r.returned.map((name) => ({ name, surfaces: [], input: [], output: [] })) }
        : null,
      diffProblem: r.withDiff ? null : r.diffProblem,
    }));
