// Template files over 6 MB go up as resumable uploads (TUS, at
// /storage/v1/upload/resumable), as the platform's storage docs recommend
// for large files: the file is sent in 6 MB chunks, and a dropped connection
// resumes from what the server already has instead of starting over.
import { Upload } from 'tus-js-client'
import { env } from '@/config/env'
import { getSupabase } from '@/lib/supabase'

/** Files larger than this use a resumable upload. */
export const RESUMABLE_THRESHOLD = 6 * 1024 * 1024
/** The chunk size the platform asks for. */
export const RESUMABLE_CHUNK_SIZE = 6 * 1024 * 1024

export function resumableEndpoint(): string {
  return `${env.apiOrigin}/storage/v1/upload/resumable`
}

/** The storage server's message in a tus error (its response body), else the error's own. */
function messageOf(error: unknown): string {
  const response = (error as { originalResponse?: { getBody?: () => string } | null }).originalResponse
  const body = response?.getBody?.()
  if (body) return body.trim()
  return error instanceof Error ? error.message : String(error)
}

/**
 * Uploads `file` to `bucket` at `path` (never overwriting), as the signed-in
 * user: answers like `storage.from(bucket).upload` does, `{ error }`.
 */
export async function resumableUpload(
  bucket: string,
  path: string,
  file: File,
  cacheControl: string,
): Promise<{ error: Error | null }> {
  const { data } = await getSupabase().auth.getSession()
  const token = data.session?.access_token
  if (!token) return { error: new Error('Sign in to upload files') }
  return new Promise((resolve) => {
    const upload = new Upload(file, {
      endpoint: resumableEndpoint(),
      chunkSize: RESUMABLE_CHUNK_SIZE,
      retryDelays: [0, 1000, 3000, 5000],
      headers: { authorization: `Bearer ${token}`, 'x-upsert': 'false' },
      metadata: {
        bucketName: bucket,
        objectName: path,
        contentType: file.type || 'application/octet-stream',
        cacheControl,
      },
      // Each upload has a fresh name: an earlier upload of the same file is not this one.
      storeFingerprintForResuming: false,
      onError: (error) => resolve({ error: new Error(messageOf(error)) }),
      onSuccess: () => resolve({ error: null }),
    })
    upload.start()
  })
}
