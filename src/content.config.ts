// Content collections. Methodology versions are frozen files (content/methodology/v1.mdx; v2 will be a
// new file, never an edit); the changelog holds restatement notes, one file per entry.
import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
// Astro's own Zod (4), not the project's: `z` from astro:content is deprecated since Astro 6.
import { z } from 'astro/zod';

const methodology = defineCollection({
  loader: glob({ base: './content/methodology', pattern: '*.mdx' }),
  schema: z.object({
    title: z.string(),
    version: z.string().regex(/^v\d+$/),
    effective: z.coerce.date(),
    frozen: z.boolean(),
    summary: z.string(),
    /** Written but not yet in force (v2 before it ships): never listed or rendered. */
    draft: z.boolean().default(false),
  }),
});

const changelog = defineCollection({
  loader: glob({ base: './content/changelog', pattern: '*.md' }),
  schema: z.object({
    title: z.string(),
    date: z.coerce.date(),
    kind: z.enum(['methodology', 'restatement', 'site', 'data']),
    methodology: z.string().optional(),
  }),
});

export const collections = { methodology, changelog };
