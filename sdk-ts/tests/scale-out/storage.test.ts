// Storage across nodes: object rows in PostgreSQL, bytes in the shared S3
// store, signed URLs signed with the shared secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bytes, closeClients, nodeA, nodeB, sameBytes, serviceClient } from './nodes'

const bucket = `scale-${Date.now().toString(36)}`
// Larger than one 1 MiB upload run, so the bytes reach S3 in several writes.
const content = bytes(2 * 1024 * 1024 + 12_345, 7)
const path = 'reports/2026/data.bin'

afterAll(closeClients)

beforeAll(async () => {
  const created = await serviceClient(nodeA).storage.createBucket(bucket, { public: false })
  expect(created.error).toBeNull()
  const uploaded = await serviceClient(nodeA)
    .storage.from(bucket)
    .upload(path, content, { contentType: 'application/octet-stream' })
  expect(uploaded.error).toBeNull()
})

describe('storage across nodes', () => {
  it('sees on B the bucket made on A', async () => {
    const { data, error } = await serviceClient(nodeB).storage.getBucket(bucket)
    expect(error).toBeNull()
    expect(data?.id).toBe(bucket)
    expect(data?.public).toBe(false)
  })

  it('downloads on B, byte for byte, what was uploaded on A', async () => {
    const { data, error } = await serviceClient(nodeB).storage.from(bucket).download(path)
    expect(error).toBeNull()
    const downloaded = new Uint8Array(await data!.arrayBuffer())
    expect(downloaded.length).toBe(content.length)
    expect(sameBytes(downloaded, content)).toBe(true)

    const listed = await serviceClient(nodeB).storage.from(bucket).list('reports/2026')
    expect(listed.error).toBeNull()
    expect(listed.data?.map((o) => o.name)).toEqual(['data.bin'])
  })

  it('serves on A a signed URL made on B', async () => {
    const { data, error } = await serviceClient(nodeB).storage.from(bucket).createSignedUrl(path, 60)
    expect(error).toBeNull()
    const signed = new URL(data!.signedUrl)
    expect(signed.origin).toBe(new URL(nodeB).origin)
    const onA = new URL(signed.pathname + signed.search, nodeA)
    const response = await fetch(onA)
    expect(response.status).toBe(200)
    expect(sameBytes(new Uint8Array(await response.arrayBuffer()), content)).toBe(true)

    // The token names this object only.
    const other = new URL(onA)
    other.pathname = other.pathname.replace('data.bin', 'other.bin')
    expect((await fetch(other)).status).toBeGreaterThanOrEqual(400)
  })

  it('sees on A a replacement made on B', async () => {
    const replacement = bytes(300_000, 11)
    const updated = await serviceClient(nodeB)
      .storage.from(bucket)
      .update(path, replacement, { contentType: 'application/octet-stream' })
    expect(updated.error).toBeNull()
    const { data, error } = await serviceClient(nodeA).storage.from(bucket).download(path)
    expect(error).toBeNull()
    expect(sameBytes(new Uint8Array(await data!.arrayBuffer()), replacement)).toBe(true)
  })
})
