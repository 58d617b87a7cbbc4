// Sized renditions of stored images (the storage server's image
// transformations), so a card or an avatar loads a few kilobytes, not the
// full upload.
import { getSupabase } from '@/lib/supabase'

/** What to ask the server for: the box (CSS pixels x2 for sharp screens) and how to fit it. */
export interface Rendition {
  width?: number
  height?: number
  resize?: 'cover' | 'contain' | 'fill'
  quality?: number
}

/** Template cards are at most ~320 CSS pixels wide. */
export const CARD_RENDITION: Rendition = { width: 640, resize: 'cover' }
/** The gallery's main image (the magnifier keeps the full upload). */
export const GALLERY_RENDITION: Rendition = { width: 1280, resize: 'cover' }
/** The gallery's thumbnails. */
export const THUMB_RENDITION: Rendition = { width: 320, resize: 'cover' }
/** Avatars up to 48 CSS pixels, and the larger ones (80 and 112). */
export const AVATAR_RENDITION: Rendition = { width: 96, height: 96, resize: 'cover' }
export const LARGE_AVATAR_RENDITION: Rendition = { width: 224, height: 224, resize: 'cover' }

/**
 * The width and height attributes of an <img> showing a rendition: its box,
 * with the height of a 16:10 preview when the rendition sets none. The
 * browser reserves the space before the image arrives, so nothing shifts.
 */
export function imageSize(rendition: Rendition): { width: number; height: number } {
  const width = rendition.width ?? rendition.height ?? 0
  return { width, height: rendition.height ?? Math.round((width * 10) / 16) }
}

const PUBLIC_MARKER = '/storage/v1/object/public/'

/**
 * A rendition URL of a stored public image, through supabase-js
 * `getPublicUrl(path, { transform })`: `value` is a public storage URL (any
 * bucket) or a bare path in `bucket`. Anything else (site assets, other
 * sites, data: and blob: URLs) is returned as it is; nothing gives null.
 */
export function renditionUrl(
  value: string | null | undefined,
  bucket: string,
  transform: Rendition,
): string | null {
  if (!value) return null
  const at = value.indexOf(PUBLIC_MARKER)
  let target: { bucket: string; path: string } | null = null
  if (at >= 0) {
    const rest = value.slice(at + PUBLIC_MARKER.length).split(/[?#]/)[0]
    const slash = rest.indexOf('/')
    if (slash > 0) {
      try {
        target = { bucket: decodeURIComponent(rest.slice(0, slash)), path: decodeURIComponent(rest.slice(slash + 1)) }
      } catch {
        target = null
      }
    }
  } else if (!/^(https?:|data:|blob:)/.test(value) && !value.startsWith('/')) {
    target = { bucket, path: value }
  }
  if (!target || !target.path) return value
  return getSupabase().storage.from(target.bucket).getPublicUrl(target.path, { transform }).data.publicUrl
}
