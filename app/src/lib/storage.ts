// Storage paths and URLs of the public buckets.
import { getSupabase } from '@/lib/supabase'

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
