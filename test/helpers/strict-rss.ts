// An RSS 2.0 feed as a strict XML 1.0 parser reads it. saxes, because it enforces what our feeds
// broke on: the Char production (C0 controls, lone surrogates, U+FFFE/U+FFFF) and `]]>` in text;
// fast-xml-parser's XMLValidator and @xmldom/xmldom 0.9 both accept `<a>\u0001</a>`.
import { SaxesParser } from 'saxes';

interface ParsedRss {
  channel: { title: string; description: string };
  items: { title: string; link: string; description: string; categories: string[] }[];
}

/** The feed as a strict XML 1.0 parser reads it; throws on the first well-formedness error. */
export function parseRss(xml: string): ParsedRss {
  const out: ParsedRss = { channel: { title: '', description: '' }, items: [] };
  const stack: string[] = [];
  let text = '';
  const parser = new SaxesParser();
  parser.on('error', (e) => {
    throw e;
  });
  parser.on('opentag', (t) => {
    stack.push(t.name);
    text = '';
    if (t.name === 'item') out.items.push({ title: '', link: '', description: '', categories: [] });
  });
  parser.on('text', (t) => (text += t));
  parser.on('cdata', (t) => (text += t));
  parser.on('closetag', (t) => {
    stack.pop();
    const parent = stack.at(-1);
    const item = out.items.at(-1);
    if (parent === 'channel' && (t.name === 'title' || t.name === 'description')) out.channel[t.name] = text;
    if (parent === 'item' && item) {
      if (t.name === 'category') item.categories.push(text);
      else if (t.name === 'title' || t.name === 'link' || t.name === 'description') item[t.name] = text;
    }
    text = '';
  });
  parser.write(xml).close();
  return out;
}

