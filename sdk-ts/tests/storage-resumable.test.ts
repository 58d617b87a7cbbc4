// Resumable uploads (TUS 1.0.0) at /storage/v1/upload/resumable with the
// tus-js-client package, as the platform's docs use it for large files:
// an upload interrupted midway resumes from its stored URL, and the object
// downloaded through the unmodified supabase-js has exactly the bytes sent.
import { randomBytes } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import type { SupabaseClient } from '@supabase/supabase-js'
import * as tus from 'tus-js-client'
import { anonKey, browserClient, plinthUrl, sql, uniqueEmail } from './support/context'

const endpoint = `${plinthUrl}/storage/v1/upload/resumable`
const MB = 1024 * 1024

let user: SupabaseClient
let uid: string
let token: string

beforeAll(async () => {
  user = browserClient()
  const email = uniqueEmail('resumable')
  await user.auth.signUp({ email, password: 'a-good-password' })
  await sql('update auth.users set email_confirmed_at = now() where email = $1', [email])
  const { data, error } = await user.auth.signInWithPassword({ email, password: 'a-good-password' })
  expect(error).toBeNull()
  uid = data.user!.id
  token = data.session!.access_token
})

function options(path: string, extra: Partial<tus.UploadOptions> = {}): tus.UploadOptions {
  return {
    endpoint,
    retryDelays: [0, 200, 500],
    headers: { authorization: `Bearer ${token}`, apikey: anonKey },
    metadata: { bucketName: 'templates', objectName: path, contentType: 'application/zip', cacheControl: '3600' },
    // The platform asks for 6 MB chunks.
    chunkSize: 6 * MB,
    ...extra,
  }
}

function run(upload: tus.Upload): Promise<void> {
  return new Promise((resolve, reject) => {
    upload.options.onSuccess = () => resolve()
    upload.options.onError = (e) => reject(e)
    upload.start()
  })
}

async function offsetOf(url: string): Promise<number> {
  const response = await fetch(url, {
    method: 'HEAD',
    headers: { 'tus-resumable': '1.0.0', authorization: `Bearer ${token}`, apikey: anonKey },
  })
  expect(response.status).toBe(200)
  return Number(response.headers.get('upload-offset'))
}

describe('resumable uploads with tus-js-client', () => {
  it('answers the protocol discovery and lets browsers send and read the protocol headers (CORS)', async () => {
    const discovery = await fetch(endpoint, { method: 'OPTIONS' })
    expect(discovery.status).toBe(204)
    expect(discovery.headers.get('tus-version')).toBe('1.0.0')
    expect(discovery.headers.get('tus-extension')).toContain('creation')
    expect(Number(discovery.headers.get('tus-max-size'))).toBeGreaterThan(6 * MB)

    const preflight = await fetch(endpoint, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://app.example',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers':
          'tus-resumable,upload-length,upload-defer-length,upload-metadata,upload-offset,x-upsert,x-signature,authorization',
      },
    })
    expect(preflight.ok).toBe(true)
    const allowed = preflight.headers.get('access-control-allow-headers')!.toLowerCase()
    for (const name of ['tus-resumable', 'upload-length', 'upload-defer-length', 'upload-metadata', 'upload-offset', 'x-signature'])
      expect(allowed).toContain(name)
    const created = await fetch(endpoint, {
      method: 'POST',
      headers: {
        origin: 'http://app.example',
        'tus-resumable': '1.0.0',
        authorization: `Bearer ${token}`,
        'upload-length': '1',
        'upload-metadata': `bucketName ${Buffer.from('templates').toString('base64')},objectName ${Buffer.from(`${uid}/files/cors.zip`).toString('base64')}`,
      },
    })
    expect(created.status).toBe(201)
    const exposed = created.headers.get('access-control-expose-headers')!.toLowerCase()
    for (const name of ['location', 'upload-offset', 'tus-resumable']) expect(exposed).toContain(name)
    const gone = await fetch(created.headers.get('location')!, {
      method: 'DELETE',
      headers: { 'tus-resumable': '1.0.0', authorization: `Bearer ${token}` },
    })
    expect(gone.status).toBe(204)
  })

  it('resumes an interrupted upload from its URL and stores exactly the bytes sent', async () => {
    const path = `${uid}/files/large-${Date.now()}.zip`
    const data = randomBytes(9 * MB)
    let interrupted!: () => void
    const aborted = new Promise<void>((resolve) => (interrupted = resolve))
    const first = new tus.Upload(data, {
      ...options(path),
      onProgress(sent) {
        if (sent >= 2 * MB) {
          first.abort().then(interrupted)
        }
      },
      onError() {},
    })
    first.start()
    await aborted
    expect(first.url).toMatch(new RegExp(`^${endpoint}/[A-Za-z0-9_-]+$`))
    // nothing is visible before the last byte
    const early = await user.storage.from('templates').download(path)
    expect(early.error).not.toBeNull()

    // the bytes received before the drop are kept (the server may still be
    // finishing the aborted request: HEAD waits for it)
    const kept = await offsetOf(first.url!)
    expect(kept).toBeGreaterThan(0)
    expect(kept).toBeLessThan(data.length)

    let resumedFrom = -1
    const second = new tus.Upload(data, {
      ...options(path),
      uploadUrl: first.url,
      onProgress(sent) {
        if (resumedFrom < 0) resumedFrom = sent
      },
    })
    await run(second)
    expect(second.url).toBe(first.url)
    expect(resumedFrom).toBeGreaterThanOrEqual(0)

    const downloaded = await user.storage.from('templates').download(path)
    expect(downloaded.error).toBeNull()
    expect(Buffer.from(await downloaded.data!.arrayBuffer()).equals(data)).toBe(true)
    const info = await user.storage.from('templates').info(path)
    expect(info.error).toBeNull()
    expect(info.data?.size).toBe(data.length)
    expect(info.data?.contentType).toBe('application/zip')
    expect(info.data?.cacheControl).toBe('max-age=3600')
  })

  it('refuses without upsert when the object exists, replaces with x-upsert, and honours row-level security', async () => {
    const path = `${uid}/files/replaced.zip`
    expect((await user.storage.from('templates').upload(path, Buffer.from('old'), { contentType: 'application/zip' })).error).toBeNull()
    const data = randomBytes(100_000)
    await expect(run(new tus.Upload(data, options(path)))).rejects.toThrow(/409|already exists/)
    await run(new tus.Upload(data, options(path, { headers: { authorization: `Bearer ${token}`, apikey: anonKey, 'x-upsert': 'true' } })))
    const downloaded = await user.storage.from('templates').download(path)
    expect(Buffer.from(await downloaded.data!.arrayBuffer()).equals(data)).toBe(true)

    // someone else's folder: refused at creation
    await expect(run(new tus.Upload(data, options('someone-else/files/x.zip')))).rejects.toThrow(/403|row-level security/)
  })

  it('uploads with a signed upload URL token on /upload/resumable/sign, for the signed object only', async () => {
    const path = `${uid}/files/signed-${Date.now()}.zip`
    const { data: signed, error } = await user.storage.from('templates').createSignedUploadUrl(path)
    expect(error).toBeNull()
    // no session: the token, sent as x-signature on every request, is the permission
    const signedOptions = (objectName: string): tus.UploadOptions => ({
      endpoint: `${endpoint}/sign`,
      retryDelays: [0, 200, 500],
      headers: { 'x-signature': signed!.token, apikey: anonKey },
      metadata: { bucketName: 'templates', objectName, contentType: 'application/zip', cacheControl: '3600' },
      chunkSize: 6 * MB,
    })
    const data = randomBytes(7 * MB)
    const upload = new tus.Upload(data, signedOptions(path))
    await run(upload)
    expect(upload.url).toMatch(new RegExp(`^${endpoint}/sign/[A-Za-z0-9_-]+$`))
    const downloaded = await user.storage.from('templates').download(path)
    expect(downloaded.error).toBeNull()
    expect(Buffer.from(await downloaded.data!.arrayBuffer()).equals(data)).toBe(true)

    // the same token for another object is refused at creation
    await expect(run(new tus.Upload(data.subarray(0, 10), signedOptions(`${uid}/files/other.zip`)))).rejects.toThrow(
      /400|Invalid signature/,
    )
  })
})
