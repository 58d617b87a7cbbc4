// A link an admin can open to the submitted template file. Files of paid
// templates live in the private bucket (named 'template-files/{path}', or by
// any storage URL of it) and get a short-lived signed URL, which admins may
// mint under that bucket's policies; anything else is linked as stored.
import { getSupabase } from '@/lib/supabase'

const PRIVATE_BUCKET = 'template-files'
export const SIGNED_LINK_SECONDS = 600

/** The object path inside the private bucket, or null when the file is not there. */
export function privateFilePath(value: string): string | null {
  if (value.startsWith(`${PRIVATE_BUCKET}/`)) return value.slice(PRIVATE_BUCKET.length + 1)
  const match = value.match(new RegExp(`/storage/v1/object/(?:authenticated|sign|public)/${PRIVATE_BUCKET}/([^?]+)`))
  return match ? decodeURIComponent(match[1]) : null
}

export async function templateFileLink(value: string | null): Promise<string | null> {
  if (!value) return null
  const path = privateFilePath(value)
  if (path === null) return value
  const { data, error } = await getSupabase().storage.from(PRIVATE_BUCKET).createSignedUrl(path, SIGNED_LINK_SECONDS)
  if (error) throw error
  return data.signedUrl
}
