// An SVG (or any XML) as a strict XML 1.0 parser reads it (saxes): throws on anything ill-formed, and
// returns the text of every <text> element in document order.
import { SaxesParser } from 'saxes';

export function saxes(xml: string): { texts: string[] } {
  const parser = new SaxesParser({ xmlns: true });
  const texts: string[] = [];
  let depth = 0;
  let current = '';
  parser.on('error', (e) => {
    throw e;
  });
  parser.on('opentag', (t) => {
    if (t.local === 'text') {
      depth++;
      current = '';
    }
  });
  parser.on('text', (t) => {
    if (depth > 0) current += t;
  });
  parser.on('closetag', (t) => {
    if (t.local === 'text' && --depth === 0) texts.push(current);
  });
  parser.write(xml.replace(/^<\?xml[^>]*>\s*/, '')).close();
  return { texts };
}
