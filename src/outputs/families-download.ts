// Contract families in the downloads and the descriptors (methodology, "Contract families"; src/lib
// families.ts, src/loader/families.ts): families.jsonl and families.csv, one row per stretch of
// membership with its family's columns beside it, and each descriptor's family block.
import type { FamiliesView } from '../loader/families.ts';
import type { FamilyBlock } from './descriptor-schema.ts';
import type { FieldType } from './parquet-schema.ts';
import type { Publication } from './publication.ts';

/** A field of the download (the shape of catalogue.ts Field, which imports this list). */
interface FamilyField {
  name: string;
  type: FieldType;
  description: string;
}

export const FAMILIES_PATH = '/data/families.jsonl';

export const FAMILY_FIELDS: FamilyField[] = [
  { name: 'family_id', type: 'string', description: 'The family: the first 16 hex of its earliest template key (canonical hash of the tenant-normalised contract and its platform), kept across the changes its members make together.' },
  { name: 'platform', type: 'string', description: "The platform of its latest template key: the endpoint host with the members' tenant words replaced by {tenant} (endpoint text, unvetted)." },
  { name: 'family_first_day', type: 'date', description: 'First day two or more members held its template.' },
  { name: 'family_last_day', type: 'date', description: 'Last day two or more members held it.' },
  { name: 'family_size', type: 'integer', description: 'Members still in it at their last successful observation.' },
  { name: 'family_members', type: 'integer', description: 'Registry names ever in it.' },
  { name: 'family_changes', type: 'integer', description: 'Template-key changes its members made while members.' },
  { name: 'family_joint_days', type: 'integer', description: 'Days on which two or more members changed (the corroboration: a template moves its tenants together).' },
  { name: 'family_joint_changes', type: 'integer', description: 'Member changes made on those days.' },
  { name: 'target', type: 'string', description: 'A member: registry server.name.' },
  { name: 'first_day', type: 'date', description: 'First day of this stretch of its membership.' },
  { name: 'last_day', type: 'date', description: 'Last day of it (inclusive); it left the family the next day unless open.' },
  { name: 'open', type: 'boolean', description: 'Still a member at its last successful observation.' },
];

/** One record per membership, families in order (first day, id), members by code units. */
export function familyRecords(v: FamiliesView): Record<string, unknown>[] {
  return v.families.flatMap((f) =>
    f.memberships.map((m) => ({
      family_id: f.id, platform: f.platform, family_first_day: f.first_day, family_last_day: f.last_day, family_size: f.size, family_members: f.members.length,
      family_changes: f.changes, family_joint_days: f.joint_days, family_joint_changes: f.joint_changes,
      target: m.target, first_day: m.first_day, last_day: m.last_day, open: m.open,
    })),
  );
}

/** A descriptor's family block: the server's open membership, if any, and every stretch. */
export function familyBlock(v: FamiliesView, target: string, pub: Pick<Publication, 'permalink'>): FamilyBlock {
  const memberships = v.byTarget.get(target) ?? [];
  const open = memberships.find((m) => m.open) ?? null;
  const f = open ? v.byId.get(open.family)! : null;
  return {
    family_id: f?.id ?? null,
    size: f?.size ?? null,
    since: open?.first_day ?? null,
    platform: f?.platform ?? null,
    memberships: memberships.map((m) => ({ family_id: m.family, first_day: m.first_day, last_day: m.last_day, open: m.open })),
    families_url: pub.permalink(FAMILIES_PATH),
  };
}
