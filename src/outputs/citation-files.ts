// The citation, licence and chain-head files of /data/ (split from catalogue.ts, which re-exports them).
// With a concept DOI (Publication.conceptDoi: the operator's Zenodo record, all versions), CITATION.cff
// names it; without one it says nothing about a DOI.
import { chainHash, headlineMethodology } from '../lib/index.ts';
import type { Archive } from '../loader/views.ts';
import { cffDoiLines, SIMULATED_NOTE, SITE_NAME, type Publication } from './publication.ts';

export function citationCff(a: Archive, pub: Publication): string {
  const q = (s: string) => JSON.stringify(s);
  // Once an edition exists, the dataset is cited as the latest one: frozen, at its permanent URL.
  const e = a.editions.at(-1);
  if (e) {
    return [
      'cff-version: 1.2.0',
      `message: ${q(`${pub.simulated ? `${SIMULATED_NOTE} ` : ''}If you use this dataset, please cite the edition below: it never changes. Later data are in later editions.`)}`,
      'type: dataset',
      `title: ${q(`${pub.simulated ? 'SIMULATED DATA — ' : ''}${SITE_NAME}: observations of remote MCP servers' tool contracts, edition ${e.edition}`)}`,
      `abstract: ${q(`Daily tools/list observations of remote MCP servers, data as of ${e.data_as_of_day}. Methodology ${e.methodology}.`)}`,
      'authors:',
      `  - name: ${q(`${SITE_NAME} contributors`)}`,
      `version: ${q(e.edition)}`,
      `date-released: ${q(e.data_as_of_day)}`,
      `url: ${q(e.url)}`,
      ...cffDoiLines(pub),
      'license: CC-BY-4.0',
      'keywords: ["Model Context Protocol", "MCP", "API drift", "survival analysis"]',
      '',
    ].join('\n');
  }
  return [
    'cff-version: 1.2.0',
    `message: ${q(`${pub.simulated ? `${SIMULATED_NOTE} ` : ''}If you use this dataset, please cite it as below, with the data-as-of date.`)}`,
    'type: dataset',
    `title: ${q(`${pub.simulated ? 'SIMULATED DATA — ' : ''}${SITE_NAME}: observations of remote MCP servers' tool contracts`)}`,
    `abstract: ${q(`Daily tools/list observations of remote MCP servers${a.asOfDay ? `, data as of ${a.asOfDay}` : ''}. Methodology ${headlineMethodology(a.headline)}.`)}`,
    'authors:',
    `  - name: ${q(`${SITE_NAME} contributors`)}`,
    `version: ${q(a.asOfDay ?? 'empty')}`,
    ...(a.asOfDay ? [`date-released: ${q(a.asOfDay)}`] : []),
    `url: ${q(pub.permalink('/data/'))}`,
    ...cffDoiLines(pub),
    'license: CC-BY-4.0',
    'keywords: ["Model Context Protocol", "MCP", "API drift", "survival analysis"]',
    '',
  ].join('\n');
}

/** chain-head.json: the chain's last manifest with its hash, so SHA256SUMS (which lists this file) carries the head. */
export function chainHeadJson(a: Pick<Archive, 'chain'>, pub: Pick<Publication, 'simulated'>): string {
  const head = a.chain.head;
  return `${JSON.stringify({ ...(pub.simulated ? { simulated: true, simulated_note: SIMULATED_NOTE } : {}), manifests: a.chain.manifests, sha256: head ? chainHash(head) : null, manifest: head }, null, 2)}\n`;
}

export function licenceData(pub: Publication): string {
  return `${pub.simulated ? `${SIMULATED_NOTE}\n\n` : ''}The mcp-schema dataset (observations, runs, drift events, contract intervals, survival curve and
roster snapshots) is licensed under the Creative Commons Attribution 4.0 International licence (CC BY 4.0):
https://creativecommons.org/licenses/by/4.0/legalcode

Attribution: "mcp-schema, data as of <date>, ${pub.permalink('/data/')}".
Tool names, descriptions and schemas inside the raw answers were written by each server's publisher.
`;
}

export const LICENCE_CODE = `MIT License

Copyright (c) mcp-schema contributors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction, including
without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the
following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial
portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT
LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO
EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER
IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE
USE OR OTHER DEALINGS IN THE SOFTWARE.
`;
