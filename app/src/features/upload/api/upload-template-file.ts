// Files of the upload screen (spec section 7, Storage): previews at
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
import { UPLOAD_CACHE_CONTROL, UPLOAD_NAME_ATTEMPTS } from '../limits'
import { RESUMABLE_THRESHOLD, resumableUpload } from './resumable-upload'

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
): Promise<StoredUpload> {
  const bucket = getSupabase().storage.from(bucketName)
  // Previews keep the spec's names; a template file keeps its own name.
  const name = () => (folder === 'previews' ? uploadName(file) : templateFileName(file.name))
  // Template files over 6 MB go up resumably (./resumable-upload).
  const resumable = folder !== 'previews' && file.size > RESUMABLE_THRESHOLD
  const path = await withFreshName(
    () => `${userId}/${folder}/${name()}`,
    (p) =>
      resumable
        ? resumableUpload(bucketName, p, file, UPLOAD_CACHE_CONTROL)
        : bucket.upload(p, file, { cacheControl: UPLOAD_CACHE_CONTROL, upsert: false }),
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
