// The file types the marketplace's buckets take (the database decides:
// migrations/20261124000500_bucket_mime_types.sql). Pickers offer these and
// check a chosen file against them, so a refused type gets a clear message
// here rather than a failed upload. SVG is no accepted image: a picture that
// can carry script.

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif'] as const

/** The `accept` attribute of an image picker. */
export const IMAGE_ACCEPT = IMAGE_TYPES.join(',')

const TEMPLATE_FILE_TYPES: readonly string[] = [
  ...IMAGE_TYPES,
  'application/zip',
  'application/x-zip-compressed',
  'application/gzip',
  'application/x-tar',
  'application/x-7z-compressed',
  'application/vnd.rar',
  'application/pdf',
  'application/json',
  'text/plain',
  'text/markdown',
  'text/csv',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.ms-powerpoint',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
  'application/octet-stream',
]

function typeOf(file: File): string {
  return file.type.split(';')[0].trim().toLowerCase()
}

/** A raster image the buckets take. */
export function isAcceptedImage(file: File): boolean {
  return (IMAGE_TYPES as readonly string[]).includes(typeOf(file))
}

/** A template file the buckets take; a type the browser does not know is sent as application/octet-stream. */
export function isAcceptedTemplateFile(file: File): boolean {
  const type = typeOf(file)
  return type === '' || TEMPLATE_FILE_TYPES.includes(type)
}
