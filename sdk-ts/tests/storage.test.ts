// supabase.storage.from(bucket).* from the unmodified client against
// /storage/v1, on the marketplace's buckets and policies.
import { beforeAll, describe, expect, it } from 'vitest'
import type { SupabaseClient } from '@supabase/supabase-js'
import { anonClient, browserClient, sql, uniqueEmail } from './support/context'

// A 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

let user: SupabaseClient
let uid: string

beforeAll(async () => {
  user = browserClient()
  const email = uniqueEmail('storage')
  await user.auth.signUp({ email, password: 'a-good-password' })
  await sql('update auth.users set email_confirmed_at = now() where email = $1', [email])
  const { data, error } = await user.auth.signInWithPassword({ email, password: 'a-good-password' })
  expect(error).toBeNull()
  uid = data.user!.id
})

describe('storage', () => {
  it('uploads to the user\'s own folder, refuses a duplicate without upsert, replaces with upsert', async () => {
    const avatars = user.storage.from('avatars')
    const path = `${uid}/avatar.png`
    const first = await avatars.upload(path, PNG, { contentType: 'image/png', cacheControl: '3600' })
    expect(first.error).toBeNull()
    expect(first.data?.path).toBe(path)

    const again = await avatars.upload(path, PNG, { contentType: 'image/png' })
    expect(again.error?.message).toBe('The resource already exists')

    const bigger = Buffer.concat([PNG, Buffer.alloc(10)])
    const replaced = await avatars.upload(path, bigger, { contentType: 'image/png', upsert: true })
    expect(replaced.error).toBeNull()
    const downloaded = await avatars.download(path)
    expect(downloaded.error).toBeNull()
    expect(Buffer.from(await downloaded.data!.arrayBuffer()).equals(bigger)).toBe(true)
  })

  it('refuses uploads outside the user\'s folder, by visitors, and of the wrong type', async () => {
    const elsewhere = await user.storage.from('avatars').upload('someone-else/a.png', PNG, { contentType: 'image/png' })
    expect(elsewhere.error).not.toBeNull()
    const visitor = await anonClient().storage.from('avatars').upload(`${uid}/b.png`, PNG, { contentType: 'image/png' })
    expect(visitor.error).not.toBeNull()
    const text = await user.storage.from('avatars').upload(`${uid}/notes.txt`, Buffer.from('hello'), { contentType: 'text/plain' })
    expect(text.error).not.toBeNull()
  })

  it('serves public URLs to anyone, with caching headers', async () => {
    const path = `${uid}/previews/cover.png`
    expect((await user.storage.from('templates').upload(path, PNG, { contentType: 'image/png', cacheControl: '3600' })).error).toBeNull()
    const { data } = anonClient().storage.from('templates').getPublicUrl(path)
    expect(data.publicUrl).toContain(`/storage/v1/object/public/templates/${path}`)
    const response = await fetch(data.publicUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('image/png')
    expect(response.headers.get('cache-control')).toContain('3600')
    expect(Buffer.from(await response.arrayBuffer()).equals(PNG)).toBe(true)
    const etag = response.headers.get('etag')!
    const cached = await fetch(data.publicUrl, { headers: { 'if-none-match': etag } })
    expect(cached.status).toBe(304)
  })

  it('lists a folder, signs URLs and removes objects', async () => {
    const templates = user.storage.from('templates')
    for (const name of ['b.zip', 'a.zip']) {
      const { error } = await templates.upload(`${uid}/files/${name}`, Buffer.from(name), { contentType: 'application/zip' })
      expect(error).toBeNull()
    }
    const listed = await templates.list(`${uid}/files`)
    expect(listed.error).toBeNull()
    expect(listed.data?.map((o) => o.name)).toEqual(['a.zip', 'b.zip'])
    const root = await templates.list(uid)
    expect(root.data?.map((o) => o.name)).toEqual(expect.arrayContaining(['files', 'previews']))

    const signed = await templates.createSignedUrl(`${uid}/files/a.zip`, 60)
    expect(signed.error).toBeNull()
    const fetched = await fetch(signed.data!.signedUrl)
    expect(fetched.status).toBe(200)
    expect(await fetched.text()).toBe('a.zip')
    const tampered = await fetch(signed.data!.signedUrl.replace(/token=[^&]+/, 'token=forged'))
    expect(tampered.status).toBeGreaterThanOrEqual(400)

    const removed = await templates.remove([`${uid}/files/a.zip`, `${uid}/files/b.zip`])
    expect(removed.error).toBeNull()
    expect(removed.data?.length).toBe(2)
    expect((await templates.list(`${uid}/files`)).data).toEqual([])
    const gone = await templates.download(`${uid}/files/a.zip`)
    expect(gone.error).not.toBeNull()
  })
})
