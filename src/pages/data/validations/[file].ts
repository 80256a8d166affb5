// Each validation gate record (validations/<day>-<sha256>.json in the archive; docs/VALIDATION.md),
// published byte for byte at /data/validations/<the same name> — in a simulated build with SIMULATED in
// its name, as every file of such a build — so `sha256sum` of the download gives back the hash in its
// name. /statistics/ links the record its figures rest on.
import type { APIRoute, GetStaticPaths } from 'astro';
import { publication } from '../../../site/settings.ts';
import { siteArchive } from '../../../site/site-archive.ts';
import { validationHref } from '../../../outputs/validation.ts';

export const getStaticPaths: GetStaticPaths = async () => {
  const a = await siteArchive();
  const pub = publication();
  return (a.validations?.records ?? []).map((r) => ({ params: { file: validationHref(r.file, pub).split('/').at(-1)! }, props: { text: r.text } }));
};

export const GET: APIRoute = ({ props }) => new Response((props as { text: string }).text, { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
