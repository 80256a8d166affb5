// The social preview image (og:image, 1200 × 630): the site's question, the two half-lives in words and
// the data date, drawn at build time. Every string on it is ours (no registry text), escaped anyway.
export interface SocialCardText {
  headline: string;
  lines: string[];
  footer: string;
  /** A banner across the top (the simulated-data warning of demo builds). */
  banner?: string | null;
}

export const SOCIAL_CARD = { width: 1200, height: 630 };

export function socialCard(t: SocialCardText): string {
  const { width, height } = SOCIAL_CARD;
  const top = t.banner ? 70 : 0;
  const text = (x: number, y: number, size: number, s: string, attrs = '') => `<text x="${x}" y="${y}" font-size="${size}" ${attrs}>${esc(s)}</text>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="DejaVu Sans, Verdana, sans-serif" role="img">`,
    `<title>${esc(t.headline)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<rect x="0" y="${height - 16}" width="${width}" height="16" fill="#0b5cad"/>`,
    t.banner ? `<rect width="${width}" height="${top}" fill="#fff4ce"/>${text(60, 46, 28, t.banner, 'fill="#4d3800" font-weight="700"')}` : '',
    text(60, top + 110, 30, 'mcp-schema', 'fill="#57606a" font-weight="700"'),
    text(60, top + 180, 52, t.headline, 'fill="#1b1f24" font-weight="700"'),
    ...t.lines.map((l, i) => text(60, top + 270 + i * 60, 38, l, 'fill="#0b5cad"')),
    text(60, height - 50, 26, t.footer, 'fill="#57606a"'),
    '</svg>',
  ].join('');
}

function esc(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}
