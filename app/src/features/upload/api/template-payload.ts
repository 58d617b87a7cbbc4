// The row the upload form writes (spec section 7, Writes): the draft payload,
// which the pending insert repeats without last_edited_at. New files are
// stored first (see ./upload-template-file for where); what was stored is
// collected so that a failed write can remove it, and a public copy a paid
// file replaces is returned to be removed once the write succeeded.
import { bucketPath } from '@/lib/storage'
import { PAID_FILES_BUCKET, TEMPLATES_BUCKET } from '@/config/constants'
import type { FileSlot, UploadFormValues } from '../form'
import { parsePrice } from '../form'
import type { UploadSource } from '../source'
import {
  copyToPaidFiles,
  uploadTemplateFile,
  type StoredObject,
  type TransferOptions,
} from './upload-template-file'

export interface TemplatePayload {
  creator_id: string
  title: string
  description: string
  about_template: string
  price: number
  price_in_cents: number
  category_id: string | null
  tags: string[]
  features_included: string[]
  requirements: string[]
  preview_image_url: string | null
  preview_images: string[]
  template_file_url: string | null
}

export interface BuiltPayload {
  payload: TemplatePayload
  /** Files no row uses once the write succeeds (a paid file's former public copy). */
  obsolete: StoredObject[]
}

/** The path in the public bucket of a stored URL, or null (private, elsewhere). */
function publicTemplatesPath(url: string): string | null {
  if (url.startsWith(`${PAID_FILES_BUCKET}/`)) return null
  if (!url.includes(`/storage/v1/object/public/${TEMPLATES_BUCKET}/`)) return null
  return bucketPath(url, TEMPLATES_BUCKET)
}

/**
 * Stores the new files (in order: main preview, additional previews, template
 * file, so paths are predictable) and builds the payload. `stored` collects
 * what was stored as it succeeds, also when a later step fails.
 */
export async function buildPayload(
  userId: string,
  values: UploadFormValues,
  fileFolder: 'templates' | 'files',
  source: UploadSource,
  stored: StoredObject[],
  transfer: TransferOptions = {},
): Promise<BuiltPayload> {
  const { price, price_in_cents } = parsePrice(values.price)
  const paid = price_in_cents > 0
  const obsolete: StoredObject[] = []

  const preview = async (slot: FileSlot): Promise<string> => {
    if (slot.kind === 'stored') return slot.url
    const upload = await uploadTemplateFile(userId, 'previews', slot.file)
    stored.push(upload)
    return upload.url
  }
  const templateFile = async (slot: FileSlot): Promise<string> => {
    if (slot.kind === 'new') {
      // The form's source scopes resumption: the same file chosen again for
      // the same form resumes its unfinished upload (issue 44, item 2).
      const scope = source.kind === 'new' ? 'new' : `${source.kind}:${source.id}`
      const upload = await uploadTemplateFile(userId, fileFolder, slot.file, paid ? PAID_FILES_BUCKET : TEMPLATES_BUCKET, {
        ...transfer,
        scope,
      })
      stored.push(upload)
      return upload.url
    }
    const publicPath = paid ? publicTemplatesPath(slot.url) : null
    if (!publicPath) return slot.url
    // Paid now, but stored publicly (e.g. saved while free): keep a private copy.
    const copy = await copyToPaidFiles(userId, fileFolder, publicPath)
    stored.push(copy)
    // The public copy goes too, unless it may be shared: an edit of a
    // published template (rejected, pending, or a draft of either) can use
    // that template's files.
    const shared = source.kind !== 'new' && !!source.originalTemplateId
    if (!shared && publicPath.startsWith(`${userId}/`)) obsolete.push({ bucket: TEMPLATES_BUCKET, path: publicPath })
    return copy.url
  }

  const preview_image_url = values.mainPreview ? await preview(values.mainPreview) : null
  const preview_images: string[] = []
  for (const slot of values.previews) preview_images.push(await preview(slot))
  const template_file_url = values.templateFile ? await templateFile(values.templateFile) : null
  return {
    payload: {
      creator_id: userId,
      title: values.title.trim(),
      description: values.description.trim(),
      about_template: values.about,
      price,
      price_in_cents,
      category_id: values.categoryId || null,
      tags: values.tags,
      features_included: values.features,
      requirements: values.requirements,
      preview_image_url,
      preview_images,
      template_file_url,
    },
    obsolete,
  }
}
