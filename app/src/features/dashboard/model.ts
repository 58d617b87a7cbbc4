// The creator's templates as the dashboard sees them: one shape for the four
// stores of the lifecycle (spec section 4), their card labels and edit links,
// and the pure computations of the dashboard's numbers.
import { storedFile, TEMPLATE_FILE_BUCKETS, type StoredFile } from '@/lib/storage'

/** The store a template lives in; also the `?tab=` value of its tab. */
export type TemplateKind = 'draft' | 'pending' | 'published' | 'rejected'

export const TEMPLATE_KINDS: TemplateKind[] = ['draft', 'pending', 'published', 'rejected']

/** The table of each store, and the column naming its owner there. */
export const KIND_TABLE: Record<TemplateKind, { table: string; owner: 'creator_id' | 'user_id' }> = {
  draft: { table: 'templates_draft', owner: 'creator_id' },
  pending: { table: 'templates_pending_approval', owner: 'creator_id' },
  published: { table: 'templates', owner: 'user_id' },
  rejected: { table: 'templates_rejected', owner: 'creator_id' },
}

/** Card labels (Active is shown as 'Published'). */
export const KIND_LABEL: Record<TemplateKind, string> = {
  draft: 'Draft',
  pending: 'Pending Approval',
  published: 'Published',
  rejected: 'Rejected',
}

export interface MyTemplate {
  id: string
  kind: TemplateKind
  title: string
  description: string | null
  price: number | string
  preview_image_url: string | null
  tags: string[]
  /** When it last changed: last edit (draft), submission (pending), approval or edit (published), rejection. */
  date: string | null
  rejection_comment: string | null
  rejection_date: string | null
  downloads_count: number | null
}

/** Where a card's edit button goes, and what it says. */
export function editLink(t: Pick<MyTemplate, 'id' | 'kind'>): { to: string; label: string } {
  const id = encodeURIComponent(t.id)
  if (t.kind === 'draft') return { to: `/upload?draft=${id}`, label: 'Continue Editing' }
  if (t.kind === 'published') return { to: `/dashboard/templates/edit/${id}`, label: 'Edit' }
  return { to: `/upload?template=${id}`, label: 'Edit' }
}

/**
 * Which templates their owner may delete here. Published templates may not:
 * the `templates` table has no delete policy and its delete privilege is
 * revoked from clients (migrations/20261122000000_marketplace_tables.sql,
 * policies/0003_templates.sql), since orders reference them and buyers keep
 * their downloads. Drafts, pending submissions and rejected templates belong
 * to their creator alone and have delete policies for them.
 */
export function canDelete(kind: TemplateKind): boolean {
  return kind !== 'published'
}

/** The confirmation dialog's description (' draft' is added for drafts). */
export function deleteDescription(kind: TemplateKind): string {
  return `This action cannot be undone. This will permanently delete your template${kind === 'draft' ? ' draft' : ''}`
}

/** The tab of `?tab=`: one of the stores, or null for All. */
export function tabFromParam(value: string | null): TemplateKind | null {
  return TEMPLATE_KINDS.includes(value as TemplateKind) ? (value as TemplateKind) : null
}

/** Mean of the ratings above 0, rounded to one decimal; 0 when none is rated. */
export function averageRating(ratings: Array<number | string | null | undefined>): number {
  const rated = ratings.map((r) => Number(r ?? 0)).filter((r) => Number.isFinite(r) && r > 0)
  if (rated.length === 0) return 0
  const mean = rated.reduce((sum, r) => sum + r, 0) / rated.length
  return Math.round(mean * 10) / 10
}

/** One item per non-blank line, trimmed (features and requirements on edit). */
export function linesToList(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
}

export function listToLines(list: string[] | null | undefined): string {
  return (list ?? []).join('\n')
}

/** Price as typed: a number, falling back to 0; cents are kept to two decimals. */
export function parsePrice(text: string): number {
  const value = Number(text)
  if (!Number.isFinite(value) || value < 0) return 0
  return Math.round(value * 100) / 100
}

export { storedFile, TEMPLATE_FILE_BUCKETS, type StoredFile } from '@/lib/storage'

/** The files of a template row, grouped by bucket (template buckets only, no repeats). */
export function filesByBucket(
  row: { preview_image_url?: string | null; preview_images?: string[] | null; template_file_url?: string | null },
  keep: Array<string | null | undefined> = [],
): Map<string, string[]> {
  const kept = new Set(keep.map(storedFile).filter((f): f is StoredFile => !!f).map((f) => `${f.bucket}/${f.path}`))
  const out = new Map<string, string[]>()
  for (const value of [row.preview_image_url, ...(row.preview_images ?? []), row.template_file_url]) {
    const file = storedFile(value)
    if (!file || !(TEMPLATE_FILE_BUCKETS as readonly string[]).includes(file.bucket)) continue
    if (kept.has(`${file.bucket}/${file.path}`)) continue
    const list = out.get(file.bucket) ?? []
    if (!list.includes(file.path)) list.push(file.path)
    out.set(file.bucket, list)
  }
  return out
}

/** Where `list` should scroll to so that `tab` (a child, `list` being its offset parent) is wholly in view. */
export function activeTabScroll(
  list: Pick<HTMLElement, 'scrollLeft' | 'clientWidth'>,
  tab: Pick<HTMLElement, 'offsetLeft' | 'offsetWidth'>,
  margin = 4,
): number {
  if (tab.offsetLeft - margin < list.scrollLeft) return Math.max(0, tab.offsetLeft - margin)
  const right = tab.offsetLeft + tab.offsetWidth + margin
  if (right > list.scrollLeft + list.clientWidth) return right - list.clientWidth
  return list.scrollLeft
}
