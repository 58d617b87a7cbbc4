// URLs handed to people are the node's public ones (API.md): the console's
// storage proxy path is never one of them.

const PROXY = '/_/console/api/storage/v1'
const PUBLIC = '/storage/v1'

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/')
}

/** A public bucket's object: `${origin}/storage/v1/object/public/<bucket>/<path>`. */
export function publicObjectUrl(origin: string, bucket: string, path: string): string {
  return `${origin}${PUBLIC}/object/public/${encodeURIComponent(bucket)}/${encodePath(path)}`
}

/** createSignedUrl's answer through the proxy, as the node's own /storage/v1 URL. */
export function publicSignedUrl(signedUrl: string, origin: string = location.origin): string {
  const url = new URL(signedUrl, origin)
  if (url.pathname.startsWith(`${PROXY}/`)) url.pathname = PUBLIC + url.pathname.slice(PROXY.length)
  return url.toString()
}

/** The folder path for list(): '' at the top, else 'a/b' (no trailing slash). */
export function folderOf(prefix: string): string {
  return prefix.replace(/^\/+|\/+$/g, '')
}

/** The breadcrumbs of a prefix: each folder with the prefix that opens it. */
export function crumbs(prefix: string): Array<{ name: string; prefix: string }> {
  const parts = folderOf(prefix).split('/').filter(Boolean)
  return parts.map((name, i) => ({ name, prefix: parts.slice(0, i + 1).join('/') }))
}

/** An object's full path in its bucket. */
export function objectPath(prefix: string, name: string): string {
  const folder = folderOf(prefix)
  return folder ? `${folder}/${name}` : name
}

/** A file size limit as typed ('5MB', '1048576', '') for createBucket/updateBucket. */
export function parseSizeLimit(text: string): number | string | null {
  const t = text.trim()
  if (!t) return null
  if (/^\d+$/.test(t)) return Number(t)
  if (/^\d+(\.\d+)?\s*(B|KB|MB|GB)$/i.test(t)) return t.replace(/\s+/g, '').toUpperCase()
  throw new Error('File size limit: a number of bytes, or a size such as 5MB.')
}

/** A comma- or space-separated list of MIME types ('' for any). */
export function parseMimeTypes(text: string): string[] | null {
  const list = text
    .split(/[\s,]+/)
    .map((t) => t.trim())
    .filter(Boolean)
  return list.length ? list : null
}
