// A link an admin can open to the submitted template file. Files of paid
// templates live in the private bucket (named 'template-files/{path}', or by
// any storage URL of it) and get a short-lived signed URL, which admins may
// mint under that bucket's policies; anything else is linked as stored.
import { getSupabase } from '@/lib/supabase'
import { storedFile } from '@/lib/storage'
import { PAID_FILES_BUCKET } from '@/config/constants'

export const SIGNED_LINK_SECONDS = 600

/** The object path inside the private bucket, or null when the file is not there. */
export function privateFilePath(value: string): string | null {
  const file = storedFile(value)
  return file?.bucket === PAID_FILES_BUCKET ? file.path : null
}

export async function templateFileLink(value: string | null): Promise<string | null> {
  if (!value) return null
  const path = privateFilePath(value)
  if (path === null) return value
  const { data, error } = await getSupabase().storage.from(PAID_FILES_BUCKET).createSignedUrl(path, SIGNED_LINK_SECONDS)
  if (error) throw error
  return data.signedUrl
}
