// Resumable uploads (TUS 1.0.0 at /storage/v1/upload/resumable, the
// platform's protocol, through tus-js-client) for files too large to send in
// one request: the file goes in chunks, a dropped connection resumes from
// what the server already has (storage keeps the bytes of a dropped PATCH),
// and the upload's URL is kept in localStorage so that choosing the same
// file again (after a reload, or a submit that failed) resumes the same
// upload instead of starting from zero (issue 44, item 2).
//
// Each upload is found again by its object's path: the caller picks the path
// (./upload-memory remembers which path a file was going to) and the tus
// fingerprint is made of that path and the file, so a different path never
// resumes another upload's bytes.
import { Upload, type UploadOptions } from 'tus-js-client'
import { env } from '@/config/env'
import { getSupabase } from '@/lib/supabase'

/** Chunks of 2 MiB: small enough that progress and resumption stay fine-grained on a slow line. */
export const RESUMABLE_CHUNK_SIZE = 2 * 1024 * 1024
/**
 * Waits between attempts after a network error (ms): together about 40 s,
 * so a connection that drops for a few seconds (a train tunnel, a Wi-Fi
 * hand-over) is outlasted rather than reported.
 */
export const RETRY_DELAYS = [0, 1000, 3000, 5000, 10_000, 20_000]

export function resumableEndpoint(): string {
  return `${env.apiOrigin}/storage/v1/upload/resumable`
}

/** Bytes sent so far of a file's total. */
export interface TransferProgress {
  sent: number
  total: number
}

/** What an upload's caller may pass: progress reports and a way to cancel. */
export interface TransferHooks {
  onProgress?: (progress: TransferProgress) => void
  /** Aborting cancels the upload and drops what the server staged of it. */
  signal?: AbortSignal
}

/** The person cancelled the upload (its staged bytes were dropped). */
export class UploadCancelledError extends Error {
  constructor() {
    super('Upload cancelled')
    this.name = 'UploadCancelledError'
  }
}

/**
 * The connection stayed away longer than the retries wait: the bytes that
 * arrived are kept on the server, and uploading the same file again resumes.
 */
export class UploadInterruptedError extends Error {
  constructor(
    message: string,
    readonly sent: number,
    readonly total: number,
  ) {
    super(message)
    this.name = 'UploadInterruptedError'
  }
}

/** The storage server's message in a tus error (its response body), else the error's own. */
function messageOf(error: unknown): string {
  const response = (error as { originalResponse?: { getBody?: () => string } | null }).originalResponse
  const body = response?.getBody?.()
  if (body) return body.trim()
  return error instanceof Error ? error.message : String(error)
}

/** The HTTP status of a tus error's response; 0 when no response arrived (a network error). */
function statusOf(error: unknown): number {
  const response = (error as { originalResponse?: { getStatus?: () => number } | null }).originalResponse
  return response?.getStatus?.() ?? 0
}

/**
 * Whether a failed request is worth another attempt: no answer at all (the
 * network), a server error, or the protocol's "try again" answers (409: the
 * offset moved, 423: locked). tus-js-client's own rule also gives up at once
 * while `navigator.onLine` is false, which is exactly when waiting helps.
 */
export function retryable(error: unknown): boolean {
  if (/already exists/i.test(messageOf(error))) return false
  const status = statusOf(error)
  return status === 0 || status >= 500 || status === 409 || status === 423
}

/** The tus fingerprint of `file` going to `bucket/path`: the stored upload URL's key. */
export function fingerprintOf(bucket: string, path: string, file: File): string {
  return ['plinth-tus', bucket, path, file.size, file.lastModified].join(':')
}

export interface ResumableUploadRequest extends TransferHooks {
  bucket: string
  path: string
  file: File
  cacheControl: string
}

/**
 * Uploads `file` to `bucket` at `path` (never overwriting), as the signed-in
 * user, resuming an earlier unfinished upload of the same file to the same
 * path: answers like `storage.from(bucket).upload` does, `{ error }`, with
 * an UploadCancelledError or UploadInterruptedError where they apply.
 */
export async function resumableUpload(request: ResumableUploadRequest): Promise<{ error: Error | null }> {
  const { bucket, path, file, cacheControl, onProgress, signal } = request
  if (signal?.aborted) return { error: new UploadCancelledError() }
  const { data } = await getSupabase().auth.getSession()
  const token = data.session?.access_token
  if (!token) return { error: new Error('Sign in to upload files') }
  return new Promise((resolve) => {
    let sent = 0
    let settled = false
    const settle = (error: Error | null) => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', cancel)
      resolve({ error })
    }
    const options: UploadOptions = {
      endpoint: resumableEndpoint(),
      chunkSize: RESUMABLE_CHUNK_SIZE,
      retryDelays: RETRY_DELAYS,
      onShouldRetry: (error) => retryable(error),
      headers: { authorization: `Bearer ${token}`, 'x-upsert': 'false' },
      metadata: {
        bucketName: bucket,
        objectName: path,
        contentType: file.type || 'application/octet-stream',
        cacheControl,
      },
      fingerprint: async () => fingerprintOf(bucket, path, file),
      // The upload's URL is kept until it completes, so it can be resumed.
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      onProgress: (bytesSent, bytesTotal) => {
        sent = bytesSent
        onProgress?.({ sent: bytesSent, total: bytesTotal })
      },
      onError: (error) => {
        const message = messageOf(error)
        settle(retryable(error) ? new UploadInterruptedError(message, sent, file.size) : new Error(message))
      },
      onSuccess: () => {
        onProgress?.({ sent: file.size, total: file.size })
        settle(null)
      },
    }
    const upload = new Upload(file, options)
    function cancel() {
      // abort(true) also asks the server to drop the staged bytes (termination).
      void upload.abort(true).catch(() => undefined)
      settle(new UploadCancelledError())
    }
    signal?.addEventListener('abort', cancel, { once: true })
    upload
      .findPreviousUploads()
      .then((previous) => {
        if (settled) return
        const earlier = previous.sort((a, b) => b.creationTime.localeCompare(a.creationTime))[0]
        if (earlier) upload.resumeFromPreviousUpload(earlier)
        upload.start()
      })
      .catch(() => {
        if (!settled) upload.start()
      })
  })
}
