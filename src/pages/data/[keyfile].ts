// The public key the chain and the editions are signed with, served at /data/<its file name> (for
// example /data/mcp-schema-ed25519.pub; in a simulated build /data/DEMO-ed25519-SIMULATED.pub, as every
// file of such a build says SIMULATED in its name): the `-inkey` file of the openssl recipes on /data/,
// so a reader can check a signature with nothing but this site.
import type { APIRoute, GetStaticPaths } from 'astro';
import { simulatedName } from '../../outputs/publication.ts';
import { publicKey, publication } from '../../site/settings.ts';

export const getStaticPaths: GetStaticPaths = () => {
  const key = publicKey();
  return key && /^[A-Za-z0-9._-]+\.pub$/.test(key.file) ? [{ params: { keyfile: simulatedName(key.file, publication()) }, props: { pem: key.pem } }] : [];
};

export const GET: APIRoute = ({ props }) => new Response((props as { pem: string }).pem, { headers: { 'Content-Type': 'application/x-pem-file' } });
