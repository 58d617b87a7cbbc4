// Template files and previews in storage, for the upload screen (spec
// section 7, Storage) and the edit screen's new versions (issue 44, item 6): previews at
// {userId}/previews/, template files at {userId}/templates/ (drafts) or
// {userId}/files/ (submitted), named {timestamp}-{random}.{ext}, cache
// control 3600, never overwriting (no upsert): when the name is taken
// ('The resource already exists') another name is tried.
//
// Buckets: previews and the files of free templates go to the public bucket
// 'templates' and rows store their public URL. The file of a PAID template
// goes, at the same path, to the private bucket 'template-files'
// (migrations/20261122000200_paid_template_files.sql) and rows store
// 'template-files/{path}': the public bucket can be read and listed by
// anyone, which would give paid files away; buyers get signed links from the
// server functions, admins sign their own for review.
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { uploadName } from '@/lib/storage'
import { PAID_FILES_BUCKET, TEMPLATES_BUCKET } from '@/config/constants'
import { resumableUpload, UploadInterruptedError, type TransferHooks } from '@/lib/resumable-upload'
import { forgetUploadPath, recallUploadPath, rememberUploadPath } from '@/lib/upload-memory'

/** Uploads are cached for an hour (spec: cache control 3600). */
export const UPLOAD_CACHE_CONTROL = '3600'
/** How many names are tried when storage answers 'The resource already exists'. */
export const UPLOAD_NAME_ATTEMPTS = 3
/**
 * Template files larger than this go up resumably (./resumable-upload), with
 * progress, retries and resumption; smaller ones and previews in one request.
 */
export const RESUMABLE_THRESHOLD = 1024 * 1024

/** How a template file's upload is followed: progress, cancel, and the form it belongs to. */
export interface TransferOptions extends TransferHooks {
  /** The form the file is chosen in (e.g. 'new', 'draft:{id}', 'version:{template id}'): an unfinished upload resumes only there. */
  scope?: string
}

export type UploadFolder = 'previews' | 'templates' | 'files'

export interface StoredObject {
  bucket: string
  path: string
}

export interface StoredUpload extends StoredObject {
  /** What a row stores: the public URL, or 'template-files/{path}' for a private file. */
  url: string
}

function alreadyExists(error: unknown): boolean {
  const message = error && typeof error === 'object' && 'message' in error ? String((error as { message: unknown }).message) : ''
  return /resource already exists/i.test(message)
}

function stored(bucket: string, path: string): StoredUpload {
  const url =
    bucket === PAID_FILES_BUCKET
      ? `${PAID_FILES_BUCKET}/${path}`
      : getSupabase().storage.from(bucket).getPublicUrl(path).data.publicUrl
  return { bucket, path, url }
}

/**
 * The name a template file keeps in storage: the uploaded file's own name,
 * made safe for storage names and URLs (letters, digits, spaces and `._-()`;
 * anything else becomes '-'), at most 120 characters.
 */
export function keptFileName(original: string): string {
  const base = original.split(/[/\\]/).pop() ?? ''
  const safe = base
    .normalize('NFC')
    .replace(/[^\p{L}\p{N} ._()-]/gu, '-')
    .trim()
    .slice(-120)
    .trim()
  return safe && !/^\.+$/.test(safe) ? safe : 'file'
}

/**
 * `{timestamp}-{random}/{original name}`: a template file's name. Departs
 * from the spec's `{timestamp}-{random}.{ext}` so that the file keeps the
 * name it was uploaded with (a reloaded draft shows it, a buyer's download is
 * saved under it), while the unique folder still never overwrites.
 */
function templateFileName(original: string): string {
  const unique = uploadName(new File([], 'x')).replace(/\.[^.]*$/, '')
  return `${unique}/${keptFileName(original)}`
}

/** Tries fresh names while storage answers that the name is taken. */
async function withFreshName(
  name: () => string,
  write: (path: string) => Promise<{ error: unknown }>,
): Promise<string> {
  let lastError: unknown = null
  for (let attempt = 0; attempt < UPLOAD_NAME_ATTEMPTS; attempt++) {
    const path = name()
    const { error } = await write(path)
    if (!error) return path
    if (!alreadyExists(error)) throw error
    lastError = error
  }
  throw lastError
}

export async function uploadTemplateFile(
  userId: string,
  folder: UploadFolder,
  file: File,
  bucketName: string = TEMPLATES_BUCKET,
  transfer: TransferOptions = {},
): Promise<StoredUpload> {
  const bucket = getSupabase().storage.from(bucketName)
  const resumable = folder !== 'previews' && file.size > RESUMABLE_THRESHOLD
  if (!resumable) {
    // Previews keep the spec's names; a template file keeps its own name.
    const name = () => (folder === 'previews' ? uploadName(file) : templateFileName(file.name))
    const path = await withFreshName(
      () => `${userId}/${folder}/${name()}`,
      (p) => bucket.upload(p, file, { cacheControl: UPLOAD_CACHE_CONTROL, upsert: false }),
    )
    transfer.onProgress?.({ sent: file.size, total: file.size })
    return stored(bucketName, path)
  }
  // An unfinished upload of this file in this form resumes at its path.
  const scope = [userId, bucketName, folder, transfer.scope ?? 'new'].join(':')
  const remembered = recallUploadPath(scope, file)
  let resume = remembered?.startsWith(`${userId}/${folder}/`) ? remembered : null
  const path = await withFreshName(
    () => {
      const p = resume ?? `${userId}/${folder}/${templateFileName(file.name)}`
      resume = null
      return p
    },
    async (p) => {
      rememberUploadPath(scope, file, p)
      const result = await resumableUpload({
        bucket: bucketName,
        path: p,
        file,
        cacheControl: UPLOAD_CACHE_CONTROL,
        onProgress: transfer.onProgress,
        signal: transfer.signal,
      })
      // Only an interrupted upload is resumed later; anything else is over.
      if (!(result.error instanceof UploadInterruptedError)) forgetUploadPath(scope, file)
      return result
    },
  )
  return stored(bucketName, path)
}

/** Copies a file of the public bucket into the private one (a template that became paid). */
export async function copyToPaidFiles(userId: string, folder: UploadFolder, fromPath: string): Promise<StoredUpload> {
  const original = fromPath.split('/').pop() ?? 'file'
  const path = await withFreshName(
    () => `${userId}/${folder}/${templateFileName(original)}`,
    (p) => getSupabase().storage.from(TEMPLATES_BUCKET).copy(fromPath, p, { destinationBucket: PAID_FILES_BUCKET }),
  )
  return stored(PAID_FILES_BUCKET, path)
}

/** Removes stored files, quietly: at worst they stay behind as orphans. */
export async function removeStoredObjects(objects: StoredObject[], why: string): Promise<void> {
  const byBucket = new Map<string, string[]>()
  for (const o of objects) byBucket.set(o.bucket, [...(byBucket.get(o.bucket) ?? []), o.path])
  for (const [bucket, paths] of byBucket) {
    const { error } = await getSupabase().storage.from(bucket).remove(paths)
    if (error) logQuiet(why, error)
  }
}
