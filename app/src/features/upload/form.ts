// The upload form's model (spec sections 5 and 7): its values, the rules of
// tags, price and images, the checklists, and the rows it writes.
import { MAX_ADDITIONAL_PREVIEWS } from './limits'
import { isAcceptedImage } from '@/lib/file-types'

/** The 12 items of the features checklist, stored by label in features_included. */
export const FEATURE_OPTIONS = [
  'Template file',
  'Setup instructions',
  'Video tutorial',
  '30-day support',
  'Lifetime updates',
  'Private community access',
  'Bonus templates',
  'Editable visuals',
  'Spreadsheet-tool integration',
  'Duplicateable workspace',
  'Mobile and desktop layout',
  'Interactive walkthrough',
] as const

/** The 8 items of the requirements checklist, stored by label in requirements. */
export const REQUIREMENT_OPTIONS = [
  'A free workspace-app account',
  'Basic knowledge of the workspace app',
  'Desktop recommended',
  'Works on mobile/tablet',
  'Access to external tools',
  'E-mail for updates and support',
  'Familiarity with database properties',
  'Willingness to customize',
] as const

export const TITLE_HINT = 'Title must be between 3 and 30 characters long'
export const DESCRIPTION_HINT = 'Description must be between 350 and 10000 characters long'
export const TITLE_MIN = 3
export const TITLE_MAX = 30
export const ABOUT_MIN = 350
export const ABOUT_MAX = 10000

/** A stored file (its public URL) or one chosen now (uploaded on save). */
export type FileSlot = { kind: 'stored'; url: string } | { kind: 'new'; file: File }

export interface UploadFormValues {
  title: string
  description: string
  about: string
  categoryId: string
  mainPreview: FileSlot | null
  previews: FileSlot[]
  templateFile: FileSlot | null
  tags: string[]
  features: string[]
  requirements: string[]
  price: string
}

export const EMPTY_FORM: UploadFormValues = {
  title: '',
  description: '',
  about: '',
  categoryId: '',
  mainPreview: null,
  previews: [],
  templateFile: null,
  tags: [],
  features: [],
  requirements: [],
  price: '0',
}

/** The fields a draft, pending or rejected row shares with the form. */
export interface TemplateSourceRow {
  id: string
  creator_id: string
  title: string | null
  description: string | null
  about_template: string | null
  price: number | string | null
  category_id: string | null
  tags: string[] | null
  preview_image_url: string | null
  preview_images: string[] | null
  template_file_url: string | null
  features_included: string[] | null
  requirements: string[] | null
}

export interface DraftRow extends TemplateSourceRow {
  last_edited_at: string
  original_template_id: string | null
}

export interface RejectedRow extends TemplateSourceRow {
  rejection_comment: string
  rejection_date: string
  original_template_id: string | null
}

export interface PendingRow extends TemplateSourceRow {
  status: string
  original_template_id: string | null
  created_at: string
}

export function formFromRow(row: TemplateSourceRow): UploadFormValues {
  const price = Number(row.price ?? 0)
  return {
    title: row.title ?? '',
    description: row.description ?? '',
    about: row.about_template ?? '',
    categoryId: row.category_id ?? '',
    mainPreview: row.preview_image_url ? { kind: 'stored', url: row.preview_image_url } : null,
    previews: (row.preview_images ?? []).map((url) => ({ kind: 'stored', url })),
    templateFile: row.template_file_url ? { kind: 'stored', url: row.template_file_url } : null,
    tags: row.tags ?? [],
    features: row.features_included ?? [],
    requirements: row.requirements ?? [],
    price: Number.isFinite(price) ? String(price) : '0',
  }
}

/**
 * The 'Errors found' rule: shown when the title is non-empty and shorter than
 * 3 (the input itself stops at 30).
 */
export function titleTooShort(title: string): boolean {
  const t = title.trim()
  return t.length > 0 && t.length < TITLE_MIN
}

export { addTag } from '@/components/tag-input'

/**
 * Price: parsed as a number, falling back to 0; kept to whole cents (the
 * column is numeric(10,2)) so that price_in_cents = round(price * 100) holds
 * for what the database stores.
 */
export function parsePrice(input: string): { price: number; price_in_cents: number } {
  const n = Number.parseFloat(input)
  const price = Number.isFinite(n) ? Math.round(n * 100) / 100 : 0
  return { price, price_in_cents: Math.round(price * 100) }
}

/** A negative price is the one price the form refuses (the database would too). */
export function priceError(input: string): string | null {
  const n = Number.parseFloat(input)
  return Number.isFinite(n) && n < 0 ? 'Price cannot be negative.' : null
}

/** A preview image the bucket takes: raster images (no SVG, which can carry script). */
export function isImage(file: File): boolean {
  return isAcceptedImage(file)
}

/** The check of new additional previews: null when they may be added, else the toast (title, description). */
export function previewsError(current: number, chosen: File[]): { title: string; description: string } | null {
  if (current + chosen.length > MAX_ADDITIONAL_PREVIEWS)
    return { title: 'Too many images', description: 'You can only upload up to 6 total preview images.' }
  if (!chosen.every(isImage)) return { title: 'Error', description: 'Please upload only image files for previews.' }
  return null
}

/** The fields required to submit (spec: title, description and category). */
export function missingRequired(values: UploadFormValues): boolean {
  return !values.title.trim() || !values.description.trim() || !values.categoryId
}

/** The name of a stored file, from its URL (the last path segment). */
export function storedFileName(url: string): string {
  try {
    const last = decodeURIComponent(new URL(url, 'http://x').pathname.split('/').pop() ?? '')
    return last || url
  } catch {
    return url
  }
}
