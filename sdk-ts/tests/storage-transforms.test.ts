// Image transformations and list-v2 through the unmodified supabase-js:
// getPublicUrl / download / createSignedUrl with { transform }, and listV2.
import { deflateSync } from 'node:zlib'
import { beforeAll, describe, expect, it } from 'vitest'
import type { SupabaseClient } from '@supabase/supabase-js'
import { anonClient, browserClient, sql, uniqueEmail } from './support/context'

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff
  for (const b of bytes) {
    crc ^= b
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** A w x h RGB PNG with a gradient. */
function png(w: number, h: number): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(w, 0)
  header.writeUInt32BE(h, 4)
  header.set([8, 2, 0, 0, 0], 8)
  const rows = Buffer.alloc((w * 3 + 1) * h)
  for (let y = 0; y < h; y++) {
    const row = y * (w * 3 + 1)
    for (let x = 0; x < w; x++) rows.set([x % 256, y % 256, (x * y) % 256], row + 1 + x * 3)
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** A PNG's width and height from its header. */
function pngSize(bytes: Buffer): [number, number] {
  expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG')
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)]
}

async function signedIn(label: string): Promise<{ client: SupabaseClient; uid: string }> {
  const client = browserClient()
  const email = uniqueEmail(label)
  await client.auth.signUp({ email, password: 'a-good-password' })
  await sql('update auth.users set email_confirmed_at = now() where email = $1', [email])
  const { data, error } = await client.auth.signInWithPassword({ email, password: 'a-good-password' })
  expect(error).toBeNull()
  return { client, uid: data.user!.id }
}

let alice: { client: SupabaseClient; uid: string }
let mallory: { client: SupabaseClient; uid: string }
const SOURCE = png(400, 200)

beforeAll(async () => {
  alice = await signedIn('transforms-alice')
  mallory = await signedIn('transforms-mallory')
})

describe('image transformations', () => {
  it('serves a public rendition from getPublicUrl(path, { transform })', async () => {
    const path = `${alice.uid}/previews/wide.png`
    const up = await alice.client.storage.from('templates').upload(path, SOURCE, { contentType: 'image/png', cacheControl: '3600' })
    expect(up.error).toBeNull()
    const { data } = anonClient().storage.from('templates').getPublicUrl(path, { transform: { width: 100, height: 100 } })
    expect(data.publicUrl).toContain(`/storage/v1/render/image/public/templates/${path}?width=100&height=100`)

    // a browser that takes WebP gets WebP
    const webp = await fetch(data.publicUrl, { headers: { accept: 'image/avif,image/webp,*/*' } })
    expect(webp.status).toBe(200)
    expect(webp.headers.get('content-type')).toBe('image/webp')
    expect(webp.headers.get('x-transformations')).toBe('height:100,width:100,resizing_type:fill')
    const body = Buffer.from(await webp.arrayBuffer())
    expect(body.subarray(0, 4).toString('ascii')).toBe('RIFF')
    expect(body.subarray(8, 12).toString('ascii')).toBe('WEBP')
    expect(body.length).toBeLessThan(SOURCE.length)

    // contain, in the source's format
    const fit = anonClient().storage.from('templates').getPublicUrl(path, {
      transform: { width: 100, height: 100, resize: 'contain', format: 'origin' },
    })
    const contained = await fetch(fit.data.publicUrl)
    expect(contained.headers.get('content-type')).toBe('image/png')
    expect(pngSize(Buffer.from(await contained.arrayBuffer()))).toEqual([100, 50])
  })

  it('downloads a rendition as the signed-in user, and refuses someone else\'s private file', async () => {
    const path = `${alice.uid}/files/photo.png`
    const up = await alice.client.storage.from('template-files').upload(path, SOURCE, { contentType: 'image/png' })
    expect(up.error).toBeNull()
    const own = await alice.client.storage
      .from('template-files')
      .download(path, { transform: { width: 50, resize: 'fill', format: 'origin' } })
    expect(own.error).toBeNull()
    expect(pngSize(Buffer.from(await own.data!.arrayBuffer()))).toEqual([50, 200])

    const stolen = await mallory.client.storage.from('template-files').download(path, { transform: { width: 50 } })
    expect(stolen.data).toBeNull()
    expect(stolen.error).not.toBeNull()
    // the public route does not open a private bucket either
    const { data } = anonClient().storage.from('template-files').getPublicUrl(path, { transform: { width: 50 } })
    const response = await fetch(data.publicUrl)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ statusCode: '404', error: 'Bucket not found' })
  })

  it('signs a transformed URL whose token carries the options', async () => {
    const path = `${alice.uid}/files/signed.png`
    await alice.client.storage.from('template-files').upload(path, SOURCE, { contentType: 'image/png' })
    const signed = await alice.client.storage
      .from('template-files')
      .createSignedUrl(path, 60, { transform: { width: 80, format: 'origin' } })
    expect(signed.error).toBeNull()
    expect(signed.data!.signedUrl).toContain(`/storage/v1/render/image/sign/template-files/${path}?token=`)
    const response = await fetch(signed.data!.signedUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('expires')).not.toBeNull()
    expect(pngSize(Buffer.from(await response.arrayBuffer()))).toEqual([80, 40])
    // the query cannot widen what the token allows
    const wider = await fetch(`${signed.data!.signedUrl}&width=400`)
    expect(pngSize(Buffer.from(await wider.arrayBuffer()))).toEqual([80, 40])
  })

  it('answers a non-image with the platform\'s error', async () => {
    const path = `${alice.uid}/files/notes.png`
    await alice.client.storage.from('template-files').upload(path, Buffer.from('not an image'), { contentType: 'image/png' })
    const { data, error } = await alice.client.storage.from('template-files').download(path, { transform: { width: 10 } })
    expect(data).toBeNull()
    expect(error).not.toBeNull()
    const token = (await alice.client.auth.getSession()).data.session!.access_token
    const { data: url } = alice.client.storage.from('template-files').getPublicUrl(path, { transform: { width: 10 } })
    const raw = await fetch(url.publicUrl.replace('/render/image/public/', '/render/image/authenticated/'), {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(await raw.json()).toEqual({
      statusCode: '400',
      code: 'InvalidRequest',
      error: 'InvalidRequest',
      message: 'The source image is invalid or unsupported for rendering',
    })
  })
})

describe('list-v2', () => {
  it('pages folders and objects with a cursor through listV2', async () => {
    const bucket = alice.client.storage.from('templates')
    const root = `${alice.uid}/tree`
    for (const name of ['a.txt', 'b/1.txt', 'b/2.txt', 'c.txt', 'd/3.txt']) {
      const { error } = await bucket.upload(`${root}/${name}`, Buffer.from(name), { contentType: 'text/plain' })
      expect(error).toBeNull()
    }
    const first = await bucket.listV2({ prefix: `${root}/`, with_delimiter: true, limit: 3 })
    expect(first.error).toBeNull()
    expect(first.data!.hasNext).toBe(true)
    // name order: a.txt, b/, c.txt | d/
    expect(first.data!.objects.map((o) => o.name)).toEqual([`${root}/a.txt`, `${root}/c.txt`])
    expect(first.data!.folders.map((f) => f.name)).toEqual([`${root}/b/`])
    // the platform also sends nextCursorKey, which storage-js's type leaves out
    expect((first.data as unknown as { nextCursorKey: string }).nextCursorKey).toBe(`${root}/c.txt`)
    expect(first.data!.objects[0]).toMatchObject({ key: 'a.txt' })
    const second = await bucket.listV2({ prefix: `${root}/`, with_delimiter: true, limit: 3, cursor: first.data!.nextCursor })
    expect(second.data!.hasNext).toBe(false)
    expect(second.data!.objects).toEqual([])
    // a folder is the platform's row for it, keyed at the prefix's depth
    expect(second.data!.folders).toEqual([
      { key: 'd', name: `${root}/d/`, id: null, metadata: null, created_at: null, updated_at: null, last_accessed_at: null },
    ])

    const flat = await bucket.listV2({ prefix: `${root}/b/` })
    expect(flat.data!.objects.map((o) => o.name)).toEqual([`${root}/b/1.txt`, `${root}/b/2.txt`])
  })
})
