// Storage paths and URLs of the public buckets.
import { getSupabase } from '@/lib/supabase'
import { PAID_FILES_BUCKET, TEMPLATES_BUCKET } from '@/config/constants'

/** A displayable URL for a stored image: full URLs and site paths as they are, else a public-bucket path. */
export function publicImageUrl(value: string | null | undefined, bucket: string): string | null {
  if (!value) return null
  if (/^(https?:|data:|blob:)/.test(value) || value.startsWith('/')) return value
  return getSupabase().storage.from(bucket).getPublicUrl(value).data.publicUrl
}

/** The path inside `bucket` of a stored object named by its public URL or path; null for anything else. */
export function bucketPath(value: string | null | undefined, bucket: string): string | null {
  if (!value) return null
  const marker = `/storage/v1/object/public/${bucket}/`
  const at = value.indexOf(marker)
  if (at >= 0) return decodeURIComponent(value.slice(at + marker.length).split('?')[0])
  if (/^(https?:|data:|blob:)/.test(value) || value.startsWith('/')) return null
  return value
}

/** `{timestamp}-{random}.{ext}` as every upload is named. */
export function uploadName(file: File, now: number = Date.now()): string {
  const fromName = file.name.includes('.') ? file.name.split('.').pop() : ''
  const ext = (fromName || file.type.split('/')[1] || 'bin').toLowerCase().replace(/[^a-z0-9]/g, '') || 'bin'
  const random = Math.random().toString(36).slice(2, 10)
  return `${now}-${random}.${ext}`
}

/** A stored file: the bucket and the object's name in it. */
export interface StoredFile {
  bucket: string
  path: string
}

/** The buckets a template's files may live in: public previews and files, and private paid files. */
export const TEMPLATE_FILE_BUCKETS = [TEMPLATES_BUCKET, PAID_FILES_BUCKET] as const

/**
 * Where a stored template file is, from its stored URL: a storage URL
 * (`.../storage/v1/object/[public/|authenticated/|sign/]{bucket}/{path}`), a
 * `{bucket}/{path}` naming one of the template buckets, or a bare path (in
 * 'templates', as the app stores paths). Site assets ('/demo/...') and other
 * sites' URLs are not ours to remove: null.
 */
export function storedFile(value: string | null | undefined): StoredFile | null {
  const url = value?.trim()
  if (!url) return null
  const split = (rest: string): StoredFile | null => {
    const clean = rest.split(/[?#]/)[0]
    const at = clean.indexOf('/')
    if (at <= 0) return null
    try {
      const bucket = decodeURIComponent(clean.slice(0, at))
      const path = decodeURIComponent(clean.slice(at + 1))
      return bucket && path ? { bucket, path } : null
    } catch {
      return null
    }
  }
  const marker = '/storage/v1/object/'
  const at = url.indexOf(marker)
  if (at >= 0) {
    const rest = url.slice(at + marker.length).replace(/^(public|authenticated|sign)\//, '')
    return split(rest)
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('/')) return null
  const named = split(url)
  if (named && (TEMPLATE_FILE_BUCKETS as readonly string[]).includes(named.bucket)) return named
  return { bucket: TEMPLATES_BUCKET, path: url.split(/[?#]/)[0] }
}
